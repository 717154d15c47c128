#!/usr/bin/env bash
# AttnScope — `render --view logit-lens|attribution|patching` draws the figure alone: the SVG
# is the size asked for and its text holds the maps' titles and axis names, never the page's
# fields, buttons or hints ("Hover", "Run patching", "Corrupted:", "Token:"); the patching
# figure names its prompts, answers and logit differences, and warns when their difference is
# small beside the logits' spread.
#   intervention_figures_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import os, re, subprocess, tempfile
from cli_checks import BIN, check, finish
from gpt2_tiny import tiny_folder

# Drawn with their mnemonic letter apart ("R" + "un patching"), so matched without it.
UI = ["Hover", "Clean:", "orrupted:", "nswer:", "rong:", "un patching", "Sto", "Token:",
      "or type a token", "text or id"]

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    tiny_folder(model, 11, 3)
    base = [BIN, "render", "--model", model, "--text", "the cat sat", "--size", "900x600"]
    cases = [("logit-lens", [], ["residual stream", "position (token)", "Top token"]),
             ("attribution", ["--attribute", "5"], ["layer", "head", "MLPs, embedding, biases"]),
             ("patching", ["--corrupt", "the dog sat", "--answer", "42", "--wrong", "114"],
              ["layer", "head", "position (token)", "“the cat sat”", "“the dog sat”", "(42)",
               "(114)", "Unstable"])]
    for view, extra, wanted in cases:
        out = os.path.join(tmp, f"{view}.svg")
        r = subprocess.run(base + ["--view", view, *extra, "-o", out], capture_output=True,
                           text=True)
        check(r.returncode == 0 and os.path.exists(out), f"{view}: exits 0 ({r.stderr.strip()})")
        if r.returncode != 0:
            continue
        svg = open(out, encoding="utf-8").read()
        check('viewBox="0 0 900 600"' in svg, f"{view}: the figure is 900 × 600")
        text = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
        text = text.replace("&amp;", "&")
        missing = [w for w in wanted if w not in text]
        check(not missing, f"{view}: the SVG's text holds {wanted} (missing {missing})")
        shown = [w for w in UI if w in text]
        check(not shown, f"{view}: no field, button or hint in the figure (found {shown})")
finish()
PY
