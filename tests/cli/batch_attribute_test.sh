#!/usr/bin/env bash
# AttnScope — `attnscope batch --analysis attribute` on a tiny random GPT-2 folder (3 layers):
# each example's token scores, erasure curves and agreement equal `attnscope attribute` of the
# same text (and its attention row equals compute's weights through numpy), the aggregates
# equal numpy's nanmean/nanstd over the per-example arrays, shards merge to the unsharded bytes,
# and the refusals (a per-head map method, an attribute option on another analysis).
#   batch_attribute_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import json, os, subprocess, tempfile
import numpy as np
from cli_checks import BIN, check, finish
from gpt2_tiny import tiny_folder

TEXTS = [("the cat sat on", None), ("we saw it", "x"), ("my hat is red", 105), ("a b", None),
         ("one two three", " ")]
METHODS = ["saliency", "input_x_gradient", "integrated_gradients", "alti_rollout",
           "attention_flow", "rollout"]
K, STEPS = 3, 8


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def load(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


with tempfile.TemporaryDirectory() as tmp:
    P = lambda name: os.path.join(tmp, name)
    model = P("tiny-gpt2")
    tiny_folder(model, 23, 3)
    lines = []
    for text, answer in TEXTS:
        lines.append(json.dumps({"text": text} if answer is None else {"text": text, "answer": answer}))
    lines.insert(2, json.dumps({"text": "the end", "answer": "xy"}))  # two tokens: skipped
    dataset = P("texts.jsonl")
    open(dataset, "w").write("\n".join(lines) + "\n")
    base = ["batch", "--model", model, "--dataset", dataset, "--analysis", "attribute",
            "--steps", str(STEPS), "--faithfulness", str(K), "--on-error", "skip"]
    ref = P("ref.npz")
    r = run(*base, "-o", ref)
    check(r.returncode == 0, f"batch attribute exits 0 ({r.stderr.strip()})")
    z = load(ref)
    E = len(TEXTS)
    check(z["aggregate/count"].tolist() == [E] and z["skipped/line"].tolist() == [3]
          and '"answer" "xy" is 2 tokens' in str(z["skipped/reason"][0]),
          f"{E} examples kept, line 3 skipped with its reason ({z['skipped/reason']})")
    names = ["attention"] + METHODS
    check([str(s) for s in z["agreement_methods"]] == names,
          f"agreement_methods {list(z['agreement_methods'])} == {names}")
    check(str(z["options"][0]) == "analysis=attribute methods=" + ",".join(METHODS)
          + f" steps={STEPS} faithfulness={K} on-error=skip", f"options recorded ({z['options'][0]})")
    one, weights = P("one.npz"), P("w.npz")
    for e, (text, answer) in enumerate(TEXTS):
        o, n = z["examples/token_offsets"][e:e + 2]
        args = ["attribute", "--model", model, "--text", text, "--steps", str(STEPS),
                "--faithfulness", str(K), "--methods", ",".join(METHODS), "-o", one]
        if answer is not None:
            tid = int(z["per_example/target"][e])
            want = answer if isinstance(answer, int) else ord(answer)  # a token per byte
            check(tid == want, f"example {e}: target {tid} is the answer {answer!r} ({want})")
            args[-2:-2] = ["--target", str(tid)]
        r = run(*args)
        check(r.returncode == 0, f"attribute of example {e} exits 0 ({r.stderr.strip()})")
        s = load(one)
        check(list(z["examples/token_ids"][o:n]) == list(s["token_ids"]), f"example {e}: token ids")
        check(int(z["per_example/position"][e]) == int(s["position"][0]) == n - o - 1
              and int(z["per_example/target"][e]) == int(s["target"][0]),
              f"example {e}: position {z['per_example/position'][e]} and target {z['per_example/target'][e]}")
        if answer is None:  # the model's top token at the last position
            r = run("compute", "--model", model, "--text", text, "-o", weights)
            c = load(weights)
            check(int(np.argmax(c["logits"].reshape(-1, c["logits"].shape[-1])[-1])) == int(s["target"][0]),
                  f"example {e}: the default target is the argmax")
        check(abs(z["per_example/logit"][e] - s["logit"][0]) <= 1e-6 * max(1, abs(s["logit"][0])),
              f"example {e}: logit")
        p = n - o - 1
        for m in METHODS:
            want = s[m] if s[m].ndim == 1 else s[m][p]
            got = z[f"per_example/{m}"][o:n]
            d = np.abs(got - want).max() / max(1e-30, np.abs(want).max())
            check(got.dtype == np.float32 and d <= 1e-6, f"example {e}: {m} within {d:.1e} of attribute's")
        r = run("compute", "--model", model, "--text", text, "-o", weights)
        w = load(weights)["weights"]
        att = w[-1].mean(0)[p]  # the last layer's mean over heads, row P: numpy's own
        d = np.abs(z["per_example/attention"][o:n] - att).max()
        check(d <= 1e-6, f"example {e}: attention row within {d:.1e} of numpy's from compute's weights")
        check(abs(z["per_example/ig_delta"][e] - s["ig_delta"][0]) <= 1e-6 * max(1, abs(s["ig_delta"][0])),
              f"example {e}: ig_delta")
        for m in names:
            got, want = z[f"per_example/faith_{m}"][e], s[f"faith_{m}"].astype(np.float64)
            check(got.shape == (K + 1,) and np.abs(got - want).max() <= 1e-6 * max(1, np.abs(want).max()),
                  f"example {e}: faith_{m} equals attribute's")
        a, b = z["per_example/agreement"][e], s["agreement"].astype(np.float64)
        check(a.shape == (7, 7) and np.array_equal(np.isnan(a), np.isnan(b))
              and np.nanmax(np.abs(a - b)) <= 1e-6, f"example {e}: agreement equals attribute's")
    check(z["per_example/saliency"].shape == (int(z["examples/token_offsets"][-1]),),
          "token scores are ragged: one per token, by examples/token_offsets")
    # The aggregates: numpy's over the finite per-example values; none for ragged scores.
    for m in names:
        x = z[f"per_example/faith_{m}"]
        em = np.abs(z[f"aggregate/faith_{m}_mean"] - x.mean(0)).max()
        es = np.abs(z[f"aggregate/faith_{m}_std"] - x.std(0)).max()
        check(em <= 1e-12 * max(1, np.abs(x).max()) and es <= 1e-12 * max(1, np.abs(x).max()),
              f"aggregate/faith_{m}: mean within {em:.1e}, sd within {es:.1e} of numpy")
        check(f"aggregate/{m}_mean" not in z, f"no aggregate of the ragged per_example/{m}")
    x = z["per_example/agreement"]
    with np.errstate(all="ignore"):
        want_m, want_s = np.nanmean(x, 0), np.nanstd(x, 0)
    got_m, got_s = z["aggregate/agreement_mean"], z["aggregate/agreement_std"]
    check(np.array_equal(np.isnan(got_m), np.isnan(want_m)) and np.nanmax(np.abs(got_m - want_m)) <= 1e-12
          and np.nanmax(np.abs(got_s - want_s)) <= 1e-12
          and (z["aggregate/agreement_count"] == np.isfinite(x).sum(0)).all(),
          "aggregate/agreement: nanmean, nanstd and the count of finite τ-b per cell")
    check(np.allclose(np.diag(got_m), 1.0), "each method agrees with itself (τ-b 1 on the diagonal)")

    # Shards merge to the unsharded bytes.
    whole = open(ref, "rb").read()
    shards = []
    for k in range(2):
        shards.append(P(f"s{k}.npz"))
        r = run(*base, "--shard", f"{k}/2", "-o", shards[-1])
        check(r.returncode == 0, f"shard {k}/2 exits 0 ({r.stderr.strip()})")
    r = run("merge", *shards, "-o", P("merged.npz"))
    check(r.returncode == 0 and open(P("merged.npz"), "rb").read() == whole,
          f"merged shards equal the unsharded output byte for byte ({r.stderr.strip()})")

    # Fewer methods: only those arrays, and the agreement over them.
    r = run("batch", "--model", model, "--dataset", dataset, "--analysis", "attribute",
            "--methods", "rollout,saliency", "--faithfulness", "2", "--on-error", "skip", "-o", P("few.npz"))
    f = load(P("few.npz")) if r.returncode == 0 else {}
    check(r.returncode == 0 and [str(s) for s in f["agreement_methods"]] == ["attention", "saliency", "rollout"]
          and "per_example/integrated_gradients" not in f and f["per_example/agreement"].shape == (E, 3, 3)
          and f["per_example/faith_rollout"].shape == (E, 3),
          f"--methods rollout,saliency --faithfulness 2: those methods in core's order ({r.stderr.strip()})")

    # Refusals.
    r = run("batch", "--model", model, "--dataset", dataset, "--analysis", "attribute",
            "--methods", "norm_based", "-o", P("x.npz"))
    check(r.returncode == 1 and "not a score per token" in r.stderr and "norm_based" in r.stderr,
          f"a per-head map method is refused by name ({r.stderr.strip()})")
    r = run("batch", "--model", model, "--dataset", dataset, "--analysis", "attribute",
            "--methods", "salience", "-o", P("x.npz"))
    check(r.returncode == 1 and "'salience' is not an attribution method" in r.stderr,
          f"an unknown method is refused ({r.stderr.strip()})")
    r = run("batch", "--model", model, "--dataset", dataset, "--analysis", "compute",
            "--faithfulness", "3", "-o", P("x.npz"))
    check(r.returncode == 1 and "--faithfulness applies to --analysis attribute" in r.stderr,
          f"an attribute option on another analysis is refused ({r.stderr.strip()})")
    r = run("batch", "--model", model, "--dataset", dataset, "--analysis", "attribute",
            "--steps", "0", "-o", P("x.npz"))
    check(r.returncode == 1 and "--steps: '0'" in r.stderr, f"--steps 0 refused ({r.stderr.strip()})")
    check(not os.path.exists(P("x.npz")), "a refused run writes nothing")
finish()
PY
