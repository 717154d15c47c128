#!/usr/bin/env bash
# AttnScope — a --text that begins with a byte order mark keeps it: GPT-2's byte-level BPE encodes
# U+FEFF as its three bytes (EF BB BF), as Hugging Face's GPT2Tokenizer does, so the tiny GPT-2
# folder's byte vocabulary gives ids 239, 187, 191 before "hi"'s 104, 105. Qt's own decoding of
# argv drops the mark, which the command line must not.
#   bom_text_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import os, subprocess, tempfile
import numpy as np
from cli_checks import BIN, check, finish
from gpt2_tiny import tiny_folder

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    tiny_folder(model)
    for text, ids in [("\ufeffhi", [239, 187, 191, 104, 105]), ("hi", [104, 105]),
                      ("h\ufeffi", [104, 239, 187, 191, 105])]:
        out = os.path.join(tmp, "out.npz")
        r = subprocess.run([BIN, "compute", "--model", model, "--text", text, "-o", out],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"{text!r}: compute exits 0 ({r.stderr.strip()})")
        if r.returncode == 0:
            got = list(np.load(out)["token_ids"])
            check(got == ids, f"{text!r}: token_ids {got} == {ids}")
finish()
PY
