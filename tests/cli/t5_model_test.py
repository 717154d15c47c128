# AttnScope — T5 through the CLI (issue #40): tiny random folders (ReLU and gated-GELU feed-
# forward, tied and separate heads; F32 and BF16) with a spiece.model trained here by
# SentencePiece, against seq2seq_reference's numpy encoder–decoder: `compute --target` (ids equal SentencePiece's own,
# </s> appended; every weight array to 3e-5; logits to 1e-4 relative), "Scale by 1/√d_k" on
# (--scale: other weights, equal to numpy's scaled run) and off (--no-scale: the model's own),
# `translate` greedy and beam (B = 3) equal to numpy's search, a missing tensor named.
# GPL-3.0-or-later.
# Usage: t5_model_test.py ATTNSCOPE WORKDIR
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import marian_model_test as common  # noqa: E402  (check, run, compare)
import seq2seq_reference as ref  # noqa: E402
import seq2seq_tiny as tiny  # noqa: E402

TEXT = "the small cat walks to the old river"
TARGET = "die kleine katze geht zum alten fluss"


def main(exe, work):
    check, run, compare = common.check, common.run, common.compare
    cases = (("relu", True, 5, "F32"), ("gated-gelu", True, 6, "F32"),
             ("gated-gelu", False, 7, "BF16"))
    for proj, tied, seed, dtype in cases:
        name = f"{proj} {'tied' if tied else 'lm_head'}"
        folder = os.path.join(work, f"t5_{proj}_{tied}")
        c, w, sp = tiny.t5_folder(folder, seed, proj, tied, eos_boost=1.6, dtype=dtype)
        src = sp.encode(TEXT) + [1]
        tgt = [0] + sp.encode(TARGET) + [1]
        runs = (("model", [], None), ("--no-scale", ["--no-scale"], None),
                ("--scale", ["--scale"], True), ("--ablate", ["--ablate", "cross.0.0,encoder.1.3"], None))
        plain = None
        for label, opts, scale in runs:
            out = os.path.join(work, f"t5_{seed}_{label}.npz")
            code, err = run(exe, "compute", "--model", folder, "--text", TEXT, "--target", TARGET,
                            "-o", out, *opts)
            check(code == 0, f"{name} {label}: compute --target exits 0 ({err})")
            if code:
                continue
            z = np.load(out)
            check(list(z["source_ids"]) == src, f"{name}: source_ids {list(z['source_ids'])}")
            check(list(z["target_ids"]) == tgt, f"{name}: target_ids {list(z['target_ids'])}")
            check(z["logits"].shape == (len(tgt), c["vocab_size"]), f"{name}: logits [nt, vocab_size]")
            ablate = ("cross.0.0", "encoder.1.3") if label == "--ablate" else ()
            compare(z, ref.t5(w, c, src, tgt, scale, ablate), f"{name} {label}")
            if label == "model":
                plain = z["cross_weights"].copy(), z["encoder_weights"].copy()
            elif plain is not None:
                same = np.array_equal(z["cross_weights"], plain[0]) and \
                    np.array_equal(z["encoder_weights"], plain[1])
                if label == "--ablate":
                    pass
                elif label == "--no-scale":
                    check(same, f"{name}: Scale by 1/√d_k off equals the model")
                else:
                    d = float(np.abs(z["encoder_weights"] - plain[1]).max())
                    check(d > 1e-2, f"{name}: Scale by 1/√d_k on changes the weights (by {d:.3f})")

        def last(ids):
            return ref.t5(w, c, src, ids)[3][-1]
        for beam, n, alpha in ((1, 8, 1.0), (3, 8, 1.0)):
            out = os.path.join(work, f"t5t_{seed}.npz")
            code, err = run(exe, "translate", "--model", folder, "--text", TEXT, "--beam",
                            str(beam), "--max-tokens", str(n), "--length-penalty", str(alpha), "-o", out)
            check(code == 0, f"{name} B={beam}: translate exits 0 ({err})")
            if code:
                continue
            z = np.load(out)
            want, finished, shrank = ref.search(last, 0, 1, beam, n, alpha)
            got = list(z["output_ids"])
            check(got == want, f"{name} B={beam} N={n}: output {got} = numpy {want}"
                  f" ({'finished' if finished else 'N reached'}{', the beam shrank' if shrank else ''})")
            pieces = [sp.IdToPiece(i) if i < sp.GetPieceSize() else f"<id {i}>" for i in want if i > 2]
            check(str(z["text"]) == sp.decode_pieces(pieces),
                  f"{name} B={beam}: text {str(z['text'])!r}")
            compare(z, ref.t5(w, c, src, [0] + want)[:3], f"{name} B={beam} teacher-forced on the output")
    # A folder without the decoder's relative position table: refused naming file and tensor.
    good = os.path.join(work, "t5_relu_True")
    bad = os.path.join(work, "t5_bad")
    shutil.copytree(good, bad)
    c = json.load(open(os.path.join(bad, "config.json")))
    _, w, _ = tiny.t5_folder(os.path.join(work, "t5_tmp"), 5)
    del w["decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
    tiny.write_folder(bad, c, w)
    code, err = run(exe, "compute", "--model", bad, "--text", TEXT, "--target", TARGET, "-o",
                    os.path.join(work, "bad.npz"))
    check(code == 2 and "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight" in err,
          f"a missing tensor is named: {err}")
    json.dump({k: v for k, v in c.items() if k != "d_kv"}, open(os.path.join(bad, "config.json"), "w"))
    code, err = run(exe, "compute", "--model", bad, "--text", TEXT, "--target", TARGET, "-o",
                    os.path.join(work, "bad.npz"))
    check(code == 2 and "config.json" in err and "d_kv" in err, f"a missing key is named: {err}")
    print(f"{common.failures} failed" if common.failures else "all passed")
    return 1 if common.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
