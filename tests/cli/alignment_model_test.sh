#!/usr/bin/env bash
# AttnScope — `attnscope render --view alignment --model DIR --text SRC --target TGT` on tiny
# random Marian and T5 folders (tests/cli/seq2seq_tiny.py): the figure is the model's
# cross-attention (it names the model, lists one hard-alignment pair per target token, the
# count numpy's reference gives), PNG at its size, --layer and --component pick the block,
# no --target aligns the model's translation, and --target on a decoder-only model is refused.
#   alignment_model_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import os, subprocess, tempfile
import xml.etree.ElementTree as ET
from cli_checks import BIN, check, finish
import seq2seq_tiny as tiny
from gpt2_tiny import tiny_folder

SRC, TGT = "the cat sat on the mat", "die katze sass auf der matte"


def run(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def svg_text(path):
    return ["".join(t.itertext()) for t in ET.parse(path).iter("{http://www.w3.org/2000/svg}text")]


with tempfile.TemporaryDirectory() as tmp:
    marian, t5 = os.path.join(tmp, "tiny-marian"), os.path.join(tmp, "tiny-t5")
    c, w, (sp, sv), (tp, tv) = tiny.marian_folder(marian, 3, True, eos_bias=3.0)
    nt_marian = 1 + len(tiny.marian_ids(tp, tv, TGT))
    _, _, p5 = tiny.t5_folder(t5, 5, "relu", True, eos_boost=1.6)
    nt_t5 = 2 + len(p5.encode(TGT))
    for name, folder, nt in (("marian", marian, nt_marian), ("t5", t5, nt_t5)):
        svg = os.path.join(tmp, name + ".svg")
        code, err = run("render", "--view", "alignment", "--model", folder, "--text", SRC,
                        "--target", TGT, "--size", "1200x800", "-o", svg)
        check(code == 0, f"{name}: render --view alignment exits 0 ({err})")
        if code:
            continue
        lines = svg_text(svg)
        text = "\n".join(lines)
        check("Cross-attention of the model" in text, f"{name}: the readout names the model")
        check(os.path.basename(folder) in text, f"{name}: the figure names the folder")
        check("hashed" not in text, f"{name}: not the untrained model's story")
        pairs = [l for l in lines if " → " in l and not l.startswith("…")]
        check(len(pairs) == min(nt, 12), f"{name}: {len(pairs)} pairs listed, {min(nt, 12)} target tokens")
        check(f"{nt} × " in text, f"{name}: {nt} target tokens down")
        png = os.path.join(tmp, name + ".png")
        code, err = run("render", "--view", "alignment", "--model", folder, "--text", SRC,
                        "--target", TGT, "--layer", "1", "--size", "900x700", "--dpi", "192", "-o", png)
        check(code == 0, f"{name}: --layer 1 at 192 dpi exits 0 ({err})")
        size = subprocess.run(["file", "-b", png], capture_output=True, text=True).stdout
        check("1800 x 1400" in size, f"{name}: PNG 1800x1400 ({size.strip()})")
        for component in ("Encoder", "Decoder", "Cross"):
            code, err = run("render", "--view", "heads", "--model", folder, "--text", SRC,
                            "--target", TGT, "--component", component, "-o",
                            os.path.join(tmp, f"{name}_{component}.png"))
            check(code == 0, f"{name}: --view heads --component {component} exits 0 ({err})")
        code, err = run("render", "--view", "alignment", "--model", folder, "--text", SRC, "-o",
                        os.path.join(tmp, name + "_translated.svg"))
        check(code == 0, f"{name}: without --target, the translation is aligned ({err})")
    gpt2 = os.path.join(tmp, "tiny-gpt2")
    tiny_folder(gpt2)
    code, err = run("render", "--view", "alignment", "--model", gpt2, "--text", "the cat",
                    "--target", "x", "-o", os.path.join(tmp, "g.png"))
    check(code == 1 and "not an encoder–decoder" in err, f"--target on GPT-2 refused ({code}: {err})")
    code, err = run("render", "--text", "the cat", "--target", "x", "-o", os.path.join(tmp, "n.png"))
    check(code == 1 and "--target belongs to render" in err, f"--target without --model refused ({code}: {err})")
finish()
PY
