# AttnScope — interventions on encoder–decoders through the CLI (issue #40): tiny random Marian
# and T5 folders (seq2seq_tiny.py) against seq2seq_reference's numpy encoder–decoder with this
# file's hooks: zero and mean ablation, knockout (encoder, decoder and cross heads), the logit
# lens over the decoder's layers (compute --target --logit-lens) and the head patching maps of
# `attnscope patch` (a corrupted source, a corrupted target), each to 1e-4 relative to the
# largest magnitude; refusals named. GPL-3.0-or-later.
# Usage: seq2seq_interventions_test.py ATTNSCOPE WORKDIR
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import marian_model_test as common  # noqa: E402  (check, run)
import seq2seq_reference as ref  # noqa: E402
import seq2seq_tiny as tiny  # noqa: E402

check, run = common.check, common.run


class Hook:
    """Mean ablation, knockouts and z patching as the decoder-only families define them
    (docs/interventions.md), the decoder's stream and z kept for the lens and patching."""

    def __init__(self, mean=(), knockouts=(), patch=None):
        self.mean = set(mean)            # (part, layer, head)
        self.knockouts = knockouts       # (part, layer, head, query or -1, key)
        self.patch = patch               # ((part, layer, head), z) put in place of the run's
        self.kept, self.stream, self.read = {}, {}, None

    def pattern(self, site, h, a):
        a = a.copy()
        for part, l, hd, q, k in self.knockouts:
            if (part, l) != site or hd != h or k >= a.shape[1]:
                continue
            for i in (range(len(a)) if q < 0 else [q] if q < len(a) else []):
                a[i, k] = 0
                if a[i].sum() > 0:
                    a[i] /= a[i].sum()
        return a

    def z(self, site, h, z):
        if site + (h,) in self.mean:
            z = np.repeat(z.mean(0, keepdims=True), len(z), 0)
        if self.patch is not None and self.patch[0] == site + (h,):
            z = self.patch[1]
        self.kept[site + (h,)] = z
        return z

    def resid(self, l, y):
        self.stream[l] = y

    def readout(self, fn):
        self.read = fn


def site(text):
    part, l, h = text.split(".")
    return part, int(l), int(h)


def rel(got, want):
    if got.shape != want.shape:
        return float("inf")
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-12))


def families(work):
    """(name, forward(src, tgt, **kw), tokenize source, tokenize target, folder) per family."""
    out = []
    folder = os.path.join(work, "marian")
    c, w, (sp, sv), (tp, tv) = tiny.marian_folder(folder, 8, True, eos_bias=0.5)
    start = c["decoder_start_token_id"]
    out.append(("marian", lambda s, t, **k: ref.marian(w, c, s, t, **k),
                lambda text: tiny.marian_ids(sp, sv, text),
                lambda text: [start] + tiny.marian_ids(tp, tv, text), folder, c["encoder_layers"]))
    folder = os.path.join(work, "t5")
    c5, w5, p5 = tiny.t5_folder(folder, 9, "gated-gelu", True, eos_boost=1.2)
    out.append(("t5", lambda s, t, **k: ref.t5(w5, c5, s, t, **k),
                lambda text: p5.encode(text) + [1], lambda text: [0] + p5.encode(text) + [1],
                folder, c5["num_layers"]))
    return out


SOURCE = "the cat sat on the mat"
TARGET = "die katze sass auf der matte"


def corruptions(tokenize, text, words):
    """TEXT with one word replaced by one of WORDS, each keeping its token count and changing its
    ids (corrupted prompts as patching needs)."""
    ids = tokenize(text)
    split = text.split()
    out = []
    for i in range(len(split)):
        for word in sorted(set(words)):
            other = " ".join(split[:i] + [word] + split[i + 1:])
            if len(tokenize(other)) == len(ids) and tokenize(other) != ids:
                out.append(other)
    return out


def spread(forward, src, tgt, csrc, ctgt):
    """How far the last target row's logits move between the runs: max − min of the change."""
    gap = forward(src, tgt)[3][-1] - forward(csrc, ctgt)[3][-1]
    return float(gap.max() - gap.min())


def numpy_patch(forward, src, csrc, tgt, ctgt, answer, wrong, layers, heads):
    clean = Hook()
    forward(src, tgt, hook=clean)
    diff = lambda logits: logits[-1, answer] - logits[-1, wrong]  # noqa: E731
    cd = diff(forward(src, tgt)[3])
    xd = diff(forward(csrc, ctgt)[3])
    maps = {}
    for part in ("encoder", "decoder", "cross"):
        m = np.zeros((layers, heads))
        for l in range(layers):
            for h in range(heads):
                hook = Hook(patch=((part, l, h), clean.kept[(part, l, h)]))
                m[l, h] = (diff(forward(csrc, ctgt, hook=hook)[3]) - xd) / (cd - xd)
        maps[part] = m
    return maps, cd, xd


def main(exe, work):
    for name, forward, tok_src, tok_tgt, folder, layers in families(work):
        src, tgt = tok_src(SOURCE), tok_tgt(TARGET)
        heads = forward(src, tgt)[0].shape[1]
        base = forward(src, tgt)
        ablate = "encoder.1.2,decoder.0.1,cross.1.3"
        knock = "encoder.0.1:2>1,decoder.1.0:*>0,cross.0.2:*>1,cross.1.1:3>0"
        k_list = [site(e.split(":")[0]) + (-1 if e.split(":")[1].split(">")[0] == "*"
                                           else int(e.split(":")[1].split(">")[0]),
                                           int(e.split(">")[1])) for e in knock.split(",")]
        cases = (("zero ablation", ["--ablate", ablate], dict(ablate=ablate.split(","))),
                 ("mean ablation", ["--ablate", ablate, "--ablate-mode", "mean"],
                  dict(hook=Hook(mean=[site(a) for a in ablate.split(",")]))),
                 ("knockout", ["--knockout", knock], dict(hook=Hook(knockouts=k_list))))
        for label, opts, kw in cases:
            out = os.path.join(work, f"{name}_{label.replace(' ', '_')}.npz")
            code, err = run(exe, "compute", "--model", folder, "--text", SOURCE, "--target",
                            TARGET, "-o", out, *opts)
            check(code == 0, f"{name} {label}: compute --target exits 0 ({err})")
            if code:
                continue
            z = np.load(out)
            want = forward(src, tgt, **kw)
            for key, wv in zip(("encoder_weights", "decoder_weights", "cross_weights", "logits"),
                               want):
                d = rel(z[key], wv)
                check(d < 1e-4, f"{name} {label}: {key} {z[key].shape} within {d:.2e} relative")
            d = float(np.abs(want[3] - base[3]).max())
            check(d > 1e-3, f"{name} {label}: the intervention changes the logits (by {d:.3f})")
        # The logit lens over the decoder's layers at the last target position, with a mean
        # ablation in effect.
        out = os.path.join(work, f"{name}_lens.npz")
        code, err = run(exe, "compute", "--model", folder, "--text", SOURCE, "--target", TARGET,
                        "--logit-lens", "--ablate", "cross.0.0", "--ablate-mode", "mean", "-o", out)
        check(code == 0, f"{name} lens: compute --target --logit-lens exits 0 ({err})")
        if code == 0:
            z = np.load(out)
            hook = Hook(mean=[("cross", 0, 0)])
            logits = forward(src, tgt, hook=hook)[3]
            want = np.array([hook.read(hook.stream[l])[-1] for l in range(len(hook.stream))])
            d = rel(z["lens_logits"], want)
            check(d < 1e-4, f"{name} lens: lens_logits {z['lens_logits'].shape} within {d:.2e}")
            d = float(np.abs(z["lens_logits"][-1] - z["logits"][-1]).max())
            check(d < 1e-4 * np.abs(logits).max(), f"{name} lens: its last row is the logits'")
        # Patching: a corrupted source with the same target, then a corrupted target.
        for what in ("source", "target"):
            # The corruption that moves the last row's logits most (a well-conditioned span).
            if what == "source":
                pick = lambda o: (tok_src(o), tgt)  # noqa: E731
                options = corruptions(tok_src, SOURCE, " ".join(tiny.SOURCE).split())
            else:
                pick = lambda o: (src, tok_tgt(o))  # noqa: E731
                options = corruptions(tok_tgt, TARGET, " ".join(tiny.TARGET).split())
            other = max(options, key=lambda o: spread(forward, src, tgt, *pick(o)), default=None)
            if other is not None:
                csrc, ctgt = pick(other)
            opts = ["--corrupt" if what == "source" else "--corrupt-target", other]
            check(other is not None, f"{name}: a corrupted {what} of the same token count")
            if other is None:
                continue
            # The answers whose difference moves most between the runs.
            gap = forward(src, tgt)[3][-1] - forward(csrc, ctgt)[3][-1]
            answer, wrong = int(np.argmax(gap)), int(np.argmin(gap))
            out = os.path.join(work, f"{name}_patch_{what}.npz")
            code, err = run(exe, "patch", "--model", folder, "--clean", SOURCE, "--target", TARGET,
                            *opts, "--answer", str(answer), "--wrong", str(wrong), "-o", out)
            check(code == 0, f"{name} patch ({what}): exits 0 ({err})")
            if code:
                continue
            z = np.load(out)
            maps, cd, xd = numpy_patch(forward, src, csrc, tgt, ctgt, answer, wrong, layers, heads)
            for part in ("encoder", "decoder", "cross"):
                key = part + "_head_patch"
                d = rel(z[key], maps[part])
                check(d < 1e-4, f"{name} patch ({what}): {key} {z[key].shape} within {d:.2e}")
            check(abs(float(z["clean_diff"][0]) - cd) < 1e-4 * max(1, abs(cd)) and
                  abs(float(z["corrupt_diff"][0]) - xd) < 1e-4 * max(1, abs(xd)),
                  f"{name} patch ({what}): clean_diff {cd:.4f}, corrupt_diff {xd:.4f}")
            check(list(z["clean_ids"]) == src and list(z["corrupt_ids"]) == csrc and
                  list(z["target_ids"]) == tgt and list(z["corrupt_target_ids"]) == ctgt,
                  f"{name} patch ({what}): the ids written are the runs'")
    # Refusals, by name.
    folder = os.path.join(work, "marian")
    out = os.path.join(work, "refused.npz")
    base = ["--model", folder, "--text", SOURCE, "-o", out]
    png = os.path.join(work, "refused.png")
    dataset = os.path.join(work, "lines.jsonl")
    with open(dataset, "w") as f:
        f.write(json.dumps({"text": SOURCE}) + "\n")
    # render draws the run with an encoder–decoder's interventions (--ablate PART.L.H).
    for opts in ([], ["--ablate", "encoder.0.1", "--ablate-mode", "mean"]):
        shown = os.path.join(work, f"render{len(opts)}.png")
        code, err = run(exe, "render", *base[:4], "--target", TARGET, "--view", "heads",
                        "--component", "Cross", "-o", shown, *opts)
        check(code == 0 and os.path.getsize(shown) > 0, f"render --view heads {opts}: {err}")
    check(open(os.path.join(work, "render0.png"), "rb").read() !=
          open(os.path.join(work, "render4.png"), "rb").read(),
          "render: the ablated head's run is drawn, not the plain one")
    for args, code_want, words in (
            (["translate", *base, "--knockout", "cross.0.0:1>0"], 1, ["--knockout", "translation"]),
            (["translate", *base, "--ablate", "cross.0.0", "--ablate-mode", "mean"], 1,
             ["mean", "translation"]),
            (["translate", *base, "--logit-lens"], 1, ["--logit-lens"]),
            (["compute", *base, "--target", TARGET, "--knockout", "cross.5.0:1>0"], 1,
             ["cross.5.0", "layers"]),
            (["compute", *base, "--target", TARGET, "--knockout", "cross.0.0:1>40"], 1,
             ["cross.0.0", "key 40"]),
            (["compute", *base, "--target", TARGET, "--knockout", "1.0:1>0"], 1,
             ["--knockout 1.0:1>0", "PART.L.H:Q>K"]),
            (["compute", *base, "--target", TARGET, "--ablate-mode", "mean"], 1, ["--ablate"]),
            (["patch", "--model", folder, "--clean", SOURCE, "--corrupt", "the cat", "--target",
              TARGET, "--answer", "1", "--wrong", "2", "-o", out], 1, ["equal token length"]),
            (["patch", "--model", folder, "--clean", SOURCE, "--target", TARGET, "--answer", "1",
              "--wrong", "2", "-o", out], 1, ["--corrupt"]),
            (["render", *base[:4], "--target", TARGET, "--view", "logit-lens", "-o", png], 1,
             ["logit-lens", "encoder–decoder", "--logit-lens"]),
            (["render", *base[:4], "--target", TARGET, "--ablate", "0.1", "-o", png], 1,
             ["decoder-only", "PART.L.H"]),
            # batch over an encoder–decoder: refused by name (it once dereferenced no model).
            (["batch", "--model", folder, "--dataset", dataset, "--analysis", "compute", "-o",
              out], 1, ["encoder–decoder", "batch", folder])):
        code, err = run(exe, *args)
        check(code == code_want and all(w in err for w in words),
              f"refused: {' '.join(args[:1] + args[5:])} -> {code}: {err}")
    print(f"{common.failures} failed" if common.failures else "all passed")
    return 1 if common.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
