# AttnScope — Marian through the CLI (issue #40): tiny random folders (shared embeddings in F32,
# separate ones in F16) with source.spm / target.spm trained here by SentencePiece and a vocab.json built
# from them, against seq2seq_reference's numpy encoder–decoder: `compute --target` (ids equal
# SentencePiece's pieces looked up in vocab.json, <unk> for one left out, </s> appended; every
# weight array to 3e-5; logits to 1e-4 relative), `translate` greedy and beam (B = 3, 4) equal to
# numpy's search, --no-scale, --ablate (encoder, decoder and cross heads), refusals and
# malformed folders named. GPL-3.0-or-later.
# Usage: marian_model_test.py ATTNSCOPE WORKDIR
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
import llama_tiny  # noqa: E402
import seq2seq_reference as ref  # noqa: E402
import seq2seq_tiny as tiny  # noqa: E402

failures = 0
TEXT = ">>de<< the cat sat on the mat by the river"
TARGET = "die katze sass auf der matte"


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def run(exe, *args):
    r = subprocess.run([exe, *args], capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def compare(z, expect, what):
    for key, want in zip(("encoder_weights", "decoder_weights", "cross_weights"), expect[:3]):
        got = z[key]
        d = float(np.abs(got - want).max()) if got.shape == want.shape else float("inf")
        check(got.dtype == np.float32 and d < 3e-5, f"{what}: {key} {got.shape} within {d:.2e}")
    if len(expect) > 3 and "logits" in z:
        got, want = z["logits"], expect[3]
        d = float(np.abs(got - want).max() / np.abs(want).max()) if got.shape == want.shape else 1
        check(d < 1e-4, f"{what}: logits {got.shape} within {d:.2e} relative")


def main(exe, work):
    for shared in (True, False):
        name = "shared" if shared else "separate"
        folder = os.path.join(work, "marian_" + name)
        c, w, (sp, sv), (tp, tv) = tiny.marian_folder(folder, 3 if shared else 4, shared,
                                                     eos_bias=3.0 if shared else 2.0,
                                                     dtype="F32" if shared else "F16")
        src = tiny.marian_ids(sp, sv, TEXT)
        tgt = [c["decoder_start_token_id"]] + tiny.marian_ids(tp, tv, TARGET)
        check(sv["<unk>"] in src, f"{name}: the source has a piece vocab.json lacks ({src})")
        check(src[0] == sv[">>de<<"], f"{name}: the language code >>de<< is the first token")
        heads = ("encoder.0.1", "decoder.0.3", "cross.1.2")
        runs = (("model", [], None, ()), ("--no-scale", ["--no-scale"], False, ()),
                ("--ablate", ["--ablate", ",".join(heads)], None, heads))
        for label, opts, scale, ablate in runs:
            out = os.path.join(work, f"m_{name}.npz")
            code, err = run(exe, "compute", "--model", folder, "--text", TEXT, "--target", TARGET,
                            "-o", out, *opts)
            check(code == 0, f"{name} {label}: compute --target exits 0 ({err})")
            if code:
                continue
            z = np.load(out)
            check(sorted(z.files) == sorted(["source_ids", "target_ids", "encoder_weights",
                                             "decoder_weights", "cross_weights", "logits"]),
                  f"{name} {label}: the arrays {sorted(z.files)}")
            check(list(z["source_ids"]) == src, f"{name}: source_ids {list(z['source_ids'])}")
            check(list(z["target_ids"]) == tgt, f"{name}: target_ids {list(z['target_ids'])}")
            expect = ref.marian(w, c, src, tgt, scale, ablate)
            check(z["logits"].shape == (len(tgt), len(tv)), f"{name}: logits [nt, vocab]")
            compare(z, expect, f"{name} {label}")

        def last(ids):
            return ref.marian(w, c, src, ids)[3][-1]
        # opus-mt's bad_words_ids ban its <pad>; the shared model's favourite is banned too (a
        # sequence of two tokens is not a ban the search applies).
        banned = [c["pad_token_id"]] + ([int(np.argmax(last([c["decoder_start_token_id"]])))]
                                        if shared else [])
        c["bad_words_ids"] = [[b] for b in banned] + [[5, 6]]
        json.dump(c, open(os.path.join(folder, "config.json"), "w"))
        for beam, n, alpha in ((1, 8, 1.0), (3, 8, 1.0), (4, 6, 0.6)):
            out = os.path.join(work, f"t_{name}.npz")
            code, err = run(exe, "translate", "--model", folder, "--text", TEXT, "--beam", str(beam),
                            "--max-tokens", str(n), "--length-penalty", str(alpha), "-o", out)
            check(code == 0, f"{name} B={beam}: translate exits 0 ({err})")
            if code:
                continue
            z = np.load(out)
            want, finished, shrank = ref.search(last, c["decoder_start_token_id"], 0, beam, n, alpha,
                                                banned)
            check(not set(want) & set(banned), f"{name} B={beam}: no banned token {banned}")
            got = list(z["output_ids"])
            check(got == want, f"{name} B={beam} N={n} α={alpha}: output {got} = numpy {want}"
                  f" ({'finished' if finished else 'N reached'}{', the beam shrank' if shrank else ''})")
            check(finished == (got[-1:] == [0]), f"{name} B={beam}: </s> last iff finished")
            if beam == 3 and not shared:
                check(shrank, f"{name} B=3: a hypothesis finished while others stayed live")
            words = [i for i in want if i not in (0, 1, tv["<pad>"])]
            pieces = [next(k for k, v in tv.items() if v == i) for i in words]
            check(str(z["text"]) == tp.decode_pieces(pieces), f"{name} B={beam}: text {str(z['text'])!r}")
            tgt_out = [c["decoder_start_token_id"]] + want
            check(list(z["target_ids"]) == tgt_out, f"{name} B={beam}: target_ids start + output")
            compare(z, ref.marian(w, c, src, tgt_out)[:3], f"{name} B={beam} teacher-forced on the output")
    refusals(exe, work)
    print(f"{failures} failed" if failures else "all passed")
    return 1 if failures else 0


def refusals(exe, work):
    folder = os.path.join(work, "marian_shared")
    out = os.path.join(work, "r.npz")
    code, err = run(exe, "compute", "--model", folder, "--text", TEXT, "-o", out)
    check(code != 0 and "encoder" in err and "--target" in err,
          f"an encoder–decoder without --target is refused: {err}")
    dec = os.path.join(work, "llama")
    llama_tiny.tiny_folder(dec, 1, llama_tiny.config())
    code, err = run(exe, "compute", "--model", dec, "--text", "the cat", "--target", "x", "-o", out)
    check(code != 0 and "decoder-only" in err and "config.json" in err,
          f"a decoder-only model given --target is refused: {err}")
    code, err = run(exe, "compute", "--model", folder, "--text", TEXT, "--target", TARGET,
                    "--ablate", "cross.2.0", "-o", out)
    check(code == 1 and "2.0" in err and "2 layers" in err, f"a head past the decoder is refused: {err}")
    code, err = run(exe, "translate", "--model", dec, "--text", "the cat", "-o", out)
    check(code != 0 and "decoder-only" in err, f"translate refuses a decoder-only model: {err}")
    code, err = run(exe, "translate", "--model", folder, "--text", TEXT, "--max-tokens", "100", "-o", out)
    ids = list(np.load(out)["output_ids"]) if code == 0 else []
    check(code == 0 and (len(ids) == 63 or ids[-1:] == [0]),
          f"translate stops at the decoder's 64 positions ({len(ids)} tokens; {err})")
    c = json.load(open(os.path.join(folder, "config.json")))
    bad = os.path.join(work, "marian_bad")
    os.makedirs(bad, exist_ok=True)
    for f in ("source.spm", "target.spm", "vocab.json", "model.safetensors"):
        os.symlink(os.path.join(folder, f), os.path.join(bad, f))
    json.dump(c, open(os.path.join(bad, "config.json"), "w"))
    os.unlink(os.path.join(bad, "source.spm"))
    open(os.path.join(bad, "source.spm"), "w").write("not a model")
    code, err = run(exe, "compute", "--model", bad, "--text", TEXT, "--target", TARGET, "-o", out)
    check(code == 2 and "source.spm" in err and "11 bytes" in err, f"a broken source.spm is named: {err}")
    json.dump({k: v for k, v in c.items() if k != "d_model"}, open(os.path.join(bad, "config.json"), "w"))
    code, err = run(exe, "compute", "--model", bad, "--text", TEXT, "--target", TARGET, "-o", out)
    check(code == 2 and "config.json" in err and "d_model" in err, f"a missing key is named: {err}")
    json.dump(c | {"encoder_ffn_dim": 48}, open(os.path.join(bad, "config.json"), "w"))
    code, err = run(exe, "compute", "--model", bad, "--text", TEXT, "--target", TARGET, "-o", out)
    check(code == 2 and "model.safetensors" in err and "model.encoder.layers.0.fc1.weight" in err,
          f"a tensor of the wrong shape is named with its file: {err}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
