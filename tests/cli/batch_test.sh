#!/usr/bin/env bash
# AttnScope — `attnscope batch` and `attnscope merge` on a tiny random GPT-2 folder (3 layers):
# each example equals the single-prompt command's result (patch, compute --ablate, census,
# compute's weights through numpy), the aggregates equal numpy's over the per-example arrays,
# bad lines are reported by line, merged shards equal the one-process run byte for byte for
# N = 1…4, a run killed at 20 points resumes to the same bytes, and the refusals.
#   batch_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import csv, json, os, subprocess, tempfile
import numpy as np
from cli_checks import BIN, check, finish
from gpt2_tiny import tiny_folder

PAIRS = [("the cat sat", "the dog sat", 116, 99), ("we saw it", "we ate it", "x", "y"),
         ("my hat is", "my cap is", 105, 115), ("red box", "big box", " ", "e"),
         ("one two", "six two", 111, 101), ("a cat ran", "a dog ran", 114, 97)]
BAD = {  # a line's text → what its reason names
    '{not json': "not valid JSON",
    '[1, 2]': "not a JSON object",
    json.dumps({"clean": "the cat", "corrupt": "the dog sat", "answer": 1, "wrong": 2}):
        "has 6 tokens and the corrupted one 10",
    json.dumps({"clean": "the cat", "corrupt": "the dog", "answer": 1}): 'no "wrong" field',
    json.dumps({"clean": "x" * 20, "corrupt": "y" * 20, "answer": 1, "wrong": 2}):
        "has 20 tokens, more than the model's 16 positions",
    json.dumps({"clean": "the cat", "corrupt": "the dog", "answer": "xy", "wrong": 2}):
        '"answer" "xy" is 2 tokens',
    json.dumps({"clean": "the cat", "corrupt": "the dog", "answer": 999, "wrong": 2}):
        "not a token id of the vocabulary of 258",
    json.dumps({"clean": "the cat", "corrupt": "the dog", "answer": 5, "wrong": 5}):
        "patching has nothing to restore",
}


def run(*args, env=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          env=None if env is None else {**os.environ, **env})


def load(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    tiny_folder(model, 11, 3)
    P = lambda name: os.path.join(tmp, name)

    # The patch dataset: good pairs with bad lines between them, and a blank line.
    lines, good_lines, bad_lines = [], [], {}
    bad = list(BAD.items())
    for i, (c, k, a, w) in enumerate(PAIRS):
        lines.append(json.dumps({"clean": c, "corrupt": k, "answer": a, "wrong": w}))
        good_lines.append(len(lines))
        if i < len(bad):
            lines.append(bad[i][0])
            bad_lines[len(lines)] = bad[i][1]
        if i == 2:
            lines.append("   ")
    for text, why in bad[len(PAIRS):]:
        lines.append(text)
        bad_lines[len(lines)] = why
    dataset = P("pairs.jsonl")
    open(dataset, "w").write("\n".join(lines) + "\n")
    base = ["batch", "--model", model, "--dataset", dataset, "--analysis", "patch"]

    ref = P("ref.npz")
    r = run(*base, "--on-error", "skip", "-o", ref)
    check(r.returncode == 0, f"batch patch --on-error skip exits 0 ({r.stderr.strip()})")
    z = load(ref)
    check(list(z["examples/line"]) == good_lines, f"examples/line {list(z['examples/line'])} == {good_lines}")
    check(list(z["skipped/line"]) == sorted(bad_lines),
          f"skipped/line {list(z['skipped/line'])} == {sorted(bad_lines)}")
    for line, reason in zip(z["skipped/line"], z["skipped/reason"]):
        check(bad_lines[int(line)] in str(reason), f"line {line}'s reason names '{bad_lines[int(line)]}' ({reason})")
    check(not os.path.exists(ref + ".journal"), "the journal is removed once the output is written")
    check(str(z["analysis"][0]) == "patch" and z["shard"].tolist() == [0, 1] and z["hashes"].shape == (3,)
          and str(z["model"][0]) == os.path.abspath(model), "analysis, shard, hashes and model recorded")
    E = len(PAIRS)
    check(z["per_example/head_patch"].shape == (E, 3, 2) and z["per_example/head_patch"].dtype == np.float32,
          f"per_example/head_patch is float32 [E,L,H] {z['per_example/head_patch'].shape}")
    # Each pair against `attnscope patch` of the same pair.
    one = P("one.npz")
    for e, (c, k, a, w) in enumerate(PAIRS):
        ids = [int(z["examples/answer_id"][e]), int(z["examples/wrong_id"][e])]
        r = run("patch", "--model", model, "--clean", c, "--corrupt", k, "--answer", str(ids[0]),
                "--wrong", str(ids[1]), "-o", one)
        check(r.returncode == 0, f"patch of pair {e} exits 0 ({r.stderr.strip()})")
        s = load(one)
        diff = np.abs(s["head_patch"] - z["per_example/head_patch"][e]).max()
        check(diff <= 1e-6, f"pair {e}: head_patch within {diff:.1e} of attnscope patch's")
        o, n = z["examples/token_offsets"][e:e + 2]
        check(list(z["examples/token_ids"][o:n]) == list(s["clean_ids"]) and
              list(z["examples/corrupt_token_ids"][o:n]) == list(s["corrupt_ids"]), f"pair {e}: token ids")
        check(abs(z["per_example/clean_diff"][e] - s["clean_diff"][0]) <= 1e-5 * max(1, abs(s["clean_diff"][0])),
              f"pair {e}: clean_diff {z['per_example/clean_diff'][e]:.6f} vs {s['clean_diff'][0]:.6f}")
        check(str(z["examples/clean"][e]) == c and str(z["examples/answer"][e]) == str(a), f"pair {e}: inputs kept")
    # The aggregates: numpy's over the per-example arrays.
    for name in ["head_patch", "clean_diff", "corrupt_diff", "logit_scale"]:
        x = z[f"per_example/{name}"].astype(np.float64)
        m, sd = z[f"aggregate/{name}_mean"], z[f"aggregate/{name}_std"]
        em = np.abs(m - x.mean(0).reshape(m.shape)).max()
        es = np.abs(sd - x.std(0).reshape(sd.shape)).max()
        check(em <= 1e-12 * max(1, np.abs(x).max()) and es <= 1e-12 * max(1, np.abs(x).max()),
              f"aggregate/{name}: mean within {em:.1e}, population sd within {es:.1e} of numpy")
    check(z["aggregate/count"].tolist() == [E], "aggregate/count")

    # --on-error stop (the default) names the file and the first bad line.
    r = run(*base, "-o", P("stop.npz"))
    first_bad = min(bad_lines)
    check(r.returncode == 2 and f"pairs.jsonl: line {first_bad}: " in r.stderr and BAD[lines[first_bad - 1]] in r.stderr,
          f"--on-error stop: exit 2 naming line {first_bad} ({r.returncode}: {r.stderr.strip()})")

    # Shards 0…N−1 merged equal the one-process run byte for byte, N = 1…4.
    whole = open(ref, "rb").read()
    for N in range(1, 5):
        shards = []
        for K in range(N):
            s = P(f"s{K}of{N}.npz")
            r = run(*base, "--on-error", "skip", "--shard", f"{K}/{N}", "-o", s)
            check(r.returncode == 0, f"shard {K}/{N} exits 0 ({r.stderr.strip()})")
            shards.append(s)
        sz = load(shards[-1])
        check(sz["shard"].tolist() == [N - 1, N], f"shard {N-1}/{N} records its shard")
        m = P(f"merged{N}.npz")
        r = run("merge", *reversed(shards), "-o", m)
        check(r.returncode == 0 and open(m, "rb").read() == whole,
              f"merge of {N} shards equals the unsharded output byte for byte ({r.stderr.strip()})")
    # Merge refusals.
    r = run("merge", P("s0of3.npz"), P("s1of3.npz"), "-o", P("m.npz"))
    check(r.returncode == 1 and "shard 2/3 is missing" in r.stderr, f"missing shard refused ({r.stderr.strip()})")
    r = run("merge", P("s0of3.npz"), P("s0of3.npz"), P("s1of3.npz"), P("s2of3.npz"), "-o", P("m.npz"))
    check(r.returncode == 1 and "given twice" in r.stderr, f"a repeated shard refused ({r.stderr.strip()})")
    r = run("merge", P("s0of2.npz"), P("s1of3.npz"), "-o", P("m.npz"))
    check(r.returncode == 1 and "shard counts differ" in r.stderr, f"shards of 2 and 3 refused ({r.stderr.strip()})")
    other = P("other.npz")
    other_model = P("other-model")
    tiny_folder(other_model, 12, 3)
    r = run("batch", "--model", other_model, "--dataset", dataset, "--analysis", "patch",
            "--on-error", "skip", "--shard", "1/2", "-o", other)
    r = run("merge", P("s0of2.npz"), other, "-o", P("m.npz"))
    check(r.returncode == 1 and "the models differ" in r.stderr, f"a shard of another model refused ({r.stderr.strip()})")
    stop_shard = P("stop-shard.npz")
    plain = P("plain.jsonl")
    open(plain, "w").write("\n".join(l for i, l in enumerate(lines, 1) if i in good_lines) + "\n")
    r = run("batch", "--model", model, "--dataset", plain, "--analysis", "patch", "--shard", "1/2", "-o", stop_shard)
    r = run("merge", P("s0of2.npz"), stop_shard, "-o", P("m.npz"))
    check(r.returncode == 1 and "differ" in r.stderr, f"a shard of other options or dataset refused ({r.stderr.strip()})")
    check(not os.path.exists(P("m.npz")), "no output from a refused merge")

    # Killed with SIGKILL after k records (the header is record 1; "+": half of the next one
    # written, a torn record), 20 points; the rerun of the same command ends with the same bytes.
    records = 1 + len(good_lines) + len(bad_lines)
    points = [f"{k}" for k in range(1, 11)] + [f"{k}+" for k in range(1, 11)]
    for point in points:
        out = P(f"kill{point}.npz")
        r = run(*base, "--on-error", "skip", "-o", out, env={"ATTNSCOPE_BATCH_KILL_AFTER": point})
        killed = r.returncode == -9 and not os.path.exists(out) and os.path.exists(out + ".journal")
        r2 = run(*base, "--on-error", "skip", "-o", out)
        same = r2.returncode == 0 and open(out, "rb").read() == whole
        check(killed and same, f"killed after {point} of {records} records ({r.returncode}), resumed: "
                               f"identical bytes ({r2.returncode} {r2.stderr.strip()})")
    # Killed twice, then resumed.
    out = P("twice.npz")
    a = run(*base, "--on-error", "skip", "-o", out, env={"ATTNSCOPE_BATCH_KILL_AFTER": "3"})
    b = run(*base, "--on-error", "skip", "-o", out, env={"ATTNSCOPE_BATCH_KILL_AFTER": "4+"})
    c = run(*base, "--on-error", "skip", "-o", out)
    check(a.returncode == b.returncode == -9 and c.returncode == 0 and open(out, "rb").read() == whole,
          "killed twice (after 3, then torn after 4 more), resumed: identical bytes")
    # A resume with another option, dataset or model is refused, naming what changed.
    out = P("changed.npz")
    run(*base, "--on-error", "skip", "-o", out, env={"ATTNSCOPE_BATCH_KILL_AFTER": "4"})
    r = run(*base, "-o", out)
    check(r.returncode == 1 and "the options" in r.stderr and "changed" in r.stderr,
          f"resume with other options refused ({r.stderr.strip()})")
    r = run("batch", "--model", other_model, "--dataset", dataset, "--analysis", "patch", "--on-error", "skip", "-o", out)
    check(r.returncode == 1 and "the model" in r.stderr, f"resume with another model refused ({r.stderr.strip()})")
    changed = P("changed.jsonl")
    open(changed, "w").write("\n".join(lines[:-1]) + "\n")
    r = run("batch", "--model", model, "--dataset", changed, "--analysis", "patch", "--on-error", "skip", "-o", out)
    check(r.returncode == 1 and "the dataset" in r.stderr, f"resume with another dataset refused ({r.stderr.strip()})")
    r = run(*base, "--on-error", "skip", "--shard", "0/2", "-o", out)
    check(r.returncode == 1 and "the shard" in r.stderr, f"resume as another shard refused ({r.stderr.strip()})")
    r = run(*base, "--on-error", "skip", "-o", out)
    check(r.returncode == 0 and open(out, "rb").read() == whole, "the same command then resumes")

    # ablate: each head's effect against compute --ablate's logits.
    texts = ["the cat sat", "we saw it go", "my hat is red"]
    ds = P("texts.jsonl")
    open(ds, "w").write("\n".join(json.dumps({"text": t, "answer": a}) for t, a in
                                  zip(texts, [116, "e", 32])) + "\n")
    def logprob(path, answer):
        x = load(path)["logits"].astype(np.float64)
        return x[answer] - x.max() - np.log(np.exp(x - x.max()).sum())
    for mode in ["zero", "mean"]:
        out = P(f"ablate-{mode}.npz")
        r = run("batch", "--model", model, "--dataset", ds, "--analysis", "ablate", "--ablate-mode", mode, "-o", out)
        check(r.returncode == 0, f"batch ablate {mode} exits 0 ({r.stderr.strip()})")
        z = load(out)
        worst = 0
        for e, t in enumerate(texts):
            ans = int(z["examples/answer_id"][e])
            run("compute", "--model", model, "--text", t, "--stages", "weights", "-o", one)
            base_lp = logprob(one, ans)
            worst = max(worst, abs(z["per_example/answer_logprob"][e] - base_lp))
            for l in range(3):
                for h in range(2):
                    run("compute", "--model", model, "--text", t, "--stages", "weights", "--ablate", f"{l}.{h}",
                        "--ablate-mode", mode, "-o", one)
                    worst = max(worst, abs(z["per_example/ablate_effect"][e, l, h] - (logprob(one, ans) - base_lp)))
        moved = np.abs(z["per_example/ablate_effect"]).max()
        check(worst <= 1e-5 and moved > 1e-3,
              f"ablate {mode}: every effect within {worst:.1e} of compute --ablate's (largest {moved:.3f})")
        x = z["per_example/ablate_effect"]
        check(np.abs(z["aggregate/ablate_effect_mean"] - x.mean(0)).max() <= 1e-12 and
              np.abs(z["aggregate/ablate_effect_std"] - x.std(0)).max() <= 1e-12, f"ablate {mode}: aggregates == numpy")

    # census: each text against attnscope census; the label counts.
    out = P("census.npz")
    r = run("batch", "--model", model, "--dataset", ds, "--analysis", "census", "-o", out)
    check(r.returncode == 0, f"batch census exits 0 ({r.stderr.strip()})")
    z = load(out)
    names = [str(p) for p in z["patterns"]]
    for e, t in enumerate(texts):
        run("census", "--model", model, "--text", t, "-o", P("c.csv"))
        rows = list(csv.DictReader(open(P("c.csv"))))
        for row in rows:
            l, h = int(row["layer_from_0"]), int(row["head_from_0"])
            want = [float(row[c.replace("-", "_")]) if row[c.replace("-", "_")] else np.nan for c in names[:6]]
            got = z["per_example/census_scores"][e, l, h]
            ok = np.allclose(got, want, rtol=1e-7, atol=1e-9, equal_nan=True) and names[z["per_example/census_label"][e, l, h]] == row["pattern"]
            check(ok, f"census text {e} head {l}.{h}: {row['pattern']} {want} vs {got}")
    x = z["per_example/census_scores"]
    check(np.allclose(z["aggregate/census_scores_mean"], np.nanmean(x, 0), rtol=1e-12, equal_nan=True) and
          np.allclose(z["aggregate/census_scores_std"], np.nanstd(x, 0), rtol=1e-12, atol=1e-15, equal_nan=True) and
          (z["aggregate/census_scores_count"] == np.isfinite(x).sum(0)).all(), "census aggregates == numpy's nanmean/nanstd")
    counts = np.stack([(z["per_example/census_label"] == k).sum(0) for k in range(7)], -1)
    check((z["aggregate/census_label_counts"] == counts).all(), "census label counts")

    # compute: each head's statistics from compute's weights through numpy.
    out = P("compute.npz")
    r = run("batch", "--model", model, "--dataset", ds, "--analysis", "compute", "--progress", "json", "-o", out)
    check(r.returncode == 0, f"batch compute exits 0 ({r.stderr.strip()})")
    events = [json.loads(l) for l in r.stderr.splitlines() if l.strip()]
    check([e.get("done") for e in events[:-1]] == [1, 2, 3] and events[-1].get("finished") is True
          and events[0]["total"] == 3, f"--progress json: {events}")
    z = load(out)
    worst = 0
    for e, t in enumerate(texts):
        run("compute", "--model", model, "--text", t, "--stages", "weights", "-o", one)
        W = load(one)["weights"].astype(np.float64)
        n = W.shape[-1]
        ent = -(np.where(W > 0, W * np.log(np.where(W > 0, W, 1)), 0)).sum(-1).mean(-1)
        dist = (W * np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])).sum(-1).mean(-1)
        for name, want in [("entropy", ent), ("max_weight", W.max(-1).mean(-1)), ("mean_distance", dist)]:
            worst = max(worst, np.abs(z[f"per_example/{name}"][e] - want).max())
    check(worst <= 1e-5, f"compute: entropy, max weight, mean distance within {worst:.1e} of numpy")

    # Refusals of the command line.
    for args, code, needle in [
            (["--analysis", "attribute", "--methods", "alti"], 1, "alti gives a map per layer"),
            (["--analysis", "nope"], 1, "'nope' is not patch, ablate, census, compute or attribute"),
            (["--analysis", "patch", "--shard", "4/4"], 1, "--shard: '4/4'"),
            (["--analysis", "patch", "--on-error", "maybe"], 1, "--on-error: 'maybe'"),
            (["--analysis", "census", "--ablate-mode", "mean"], 1, "--ablate-mode applies to --analysis ablate")]:
        r = run("batch", "--model", model, "--dataset", ds, *args, "-o", P("x.npz"))
        check(r.returncode == code and needle in r.stderr, f"{args}: exit {code} naming '{needle}' ({r.returncode} {r.stderr.strip()})")
    r = run("batch", "--model", model, "--dataset", P("missing.jsonl"), "--analysis", "census", "-o", P("x.npz"))
    check(r.returncode == 2 and "missing.jsonl: no such file" in r.stderr, f"a missing dataset ({r.stderr.strip()})")
    r = run("batch", "--model", model, "--dataset", ds, "--analysis", "census", "-o", ds)
    check(r.returncode == 1 and "writes .npz" in r.stderr, f"-o must be .npz ({r.stderr.strip()})")
finish()
PY
