# Independent numpy merge of sub-word pieces into words (docs/words.md), checked against
# `attnscope compute --merge-words`.
# Usage: words_reference.py WEIGHTS_SOURCE OUT.npz WORD,WORD,...   (the expected word labels)
import json, sys
import numpy as np


def weights_of(path):
    """[L,H,Nq,Nk] post-softmax weights and the tokens of a real fixture."""
    if path.endswith(".npz"):
        d = np.load(path)
        return d["attention"].astype(np.float64), [str(t) for t in d["tokens"]]
    a = json.load(open(path))["attention"]
    a = a["all"] if isinstance(a, dict) and "all" in a else a
    if isinstance(a, list):
        a = a[0]
    return np.array(a["attn"], dtype=np.float64), a["left_text"]


def groups(tokens):
    """Word index of each token: ## continues; with Ġ / ▁ / ' ' starts, unmarked continues."""
    special = lambda t: len(t) >= 3 and (t[0] + t[-1] in ("[]", "<>"))
    wordpiece = any(t.startswith("##") for t in tokens)
    marked = any(t[:1] in ("\u0120", "\u2581", " ") for t in tokens)
    out, words = [], []
    for n, t in enumerate(tokens):
        if wordpiece:
            cont, piece = t.startswith("##"), t[2:] if t.startswith("##") else t
        elif marked:
            cont = t[:1] not in ("\u0120", "\u2581", " ")
            piece = t if cont else t[1:]
        else:
            cont, piece = False, t
        if cont and n > 0 and not special(t) and not special(tokens[n - 1]):
            words[-1] += piece
        else:
            words.append(piece)
        out.append(len(words) - 1)
    return np.array(out), words


src, out, want = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
w, tokens = weights_of(src)
g, words = groups(tokens)
assert words == want, (words, want)
n = len(words)
S = np.zeros((len(tokens), n))  # token → word indicator: keys summed by W · S
S[np.arange(len(tokens)), g] = 1
A = S.T / S.sum(0)[:, None]  # word ← token averaging: queries averaged by A · W
ref = np.einsum("wi,lhij,jv->lhwv", A, w, S)
got = np.load(out)
assert list(got["q_tokens"]) == words and list(got["k_tokens"]) == words, got["q_tokens"]
err = np.abs(got["weights"] - ref).max()
rows = np.abs(got["weights"].sum(-1) - 1).max()
print(f"{src}: {len(tokens)} pieces -> {n} words, max |weights - numpy| = {err:.2e}, "
      f"max |row sum - 1| = {rows:.2e}")
assert got["weights"].shape == ref.shape and err < 1e-6 and rows < 1e-5
