#!/usr/bin/env bash
# AttnScope — `render --view logit-lens|attribution|patching` on a tiny random GPT-2 folder
# (3 layers): each writes a drawn PNG; a scene without a model, patching prompts of unequal
# length and a token outside the vocabulary are refused with a reason and a non-zero exit.
#   interventions_render_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import os, struct, subprocess, tempfile, zlib
from cli_checks import BIN, check, finish
from gpt2_tiny import tiny_folder

def png_colours(path):
    """The PNG's width, height and number of distinct RGB colours (8-bit RGB/RGBA only)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        if kind == b"IDAT":
            idat += body
        pos += 12 + n
    ch = {2: 3, 6: 4}[ctype]
    raw, stride, prev, out = zlib.decompress(idat), w * ch, bytearray(w * ch), set()
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b, c = prev[i], prev[i - ch] if i >= ch else 0
            p = a + b - c
            pr = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
            line[i] = (line[i] + [0, a, b, (a + b) // 2, pr][f]) & 255
        for x in range(0, stride, ch * 7):
            out.add(bytes(line[x:x + 3]))
        prev = line
    return w, h, len(out)

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    tiny_folder(model, 11, 3)
    base = [BIN, "render", "--model", model, "--text", "the cat sat", "--size", "900x600"]
    for view, extra in [("logit-lens", []), ("attribution", ["--attribute", "5"]),
                        ("attribution", []),
                        ("patching", ["--corrupt", "the bat sat", "--answer", "5", "--wrong", "7"])]:
        out = os.path.join(tmp, f"{view}.png")
        r = subprocess.run(base + ["--view", view, *extra, "-o", out], capture_output=True, text=True)
        check(r.returncode == 0 and os.path.exists(out),
              f"render --view {view} {' '.join(extra)} exits 0 ({r.stderr.strip()})")
        if r.returncode == 0:
            w, h, colours = png_colours(out)
            check((w, h) == (900, 600) and colours > 12,
                  f"{view}: a 900 × 600 PNG with a drawn map ({colours} colours sampled)")

    def refused(args, words, what):
        out = os.path.join(tmp, "refused.png")
        r = subprocess.run(args + ["-o", out], capture_output=True, text=True)
        said = r.stderr.strip()
        check(r.returncode != 0 and all(x in said for x in words) and not os.path.exists(out),
              f"{what}: exit {r.returncode}, says {said!r}")

    refused([BIN, "render", "--view", "logit-lens"], ["logit-lens", "model"],
            "the default synthetic scene has no model")
    refused(base + ["--view", "patching", "--corrupt", "the cats sat on", "--answer", "5",
                    "--wrong", "7"], ["patching", "equal token length"],
            "patching prompts of unequal length")
    refused(base + ["--view", "patching", "--corrupt", "the bat sat"], ["--answer"],
            "patching without answers")
    refused(base + ["--view", "attribution", "--attribute", "999"], ["999"],
            "an attributed token outside the vocabulary")

finish()
PY
