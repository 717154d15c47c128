#!/usr/bin/env bash
# AttnScope — sizes a hostile input controls are refused before the work, naming that input
# (issue 35, items 5 and 11): a --pad position past any sequence, --pad without the padding mask
# or past the scene's keys, a tokenizer normaliser that multiplies the text, a --size figure
# against --memory-budget (its real peak within the estimate), a symbolic-link loop as the
# weights. The peaks are each process's own (os.wait4), far below what the work would take.
#   limits_before_work_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import json, os, tempfile
from cli_checks import BIN, check, finish, run_measured
from gpt2_tiny import tiny_folder
import llama_tiny

MB = 1e6
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.npz")
    # --pad: a position past any sequence, before its mask of 625 MB flags (and its copies).
    rc, err, peak = run_measured([BIN, "compute", "--mask", "padding", "--pad", "5000000000",
                                  "--memory-budget", "3G", "-o", out])
    check(rc == 1 and "--pad: position 5000000000 is past the 16777216 keys any scene may hold" in err,
          f"--pad 5000000000: exit 1, named ({rc}: {err.strip()})")
    check(peak < 300 * MB, f"--pad 5000000000 refused at a {peak / MB:.0f} MB peak, before the work")
    rc, err, peak = run_measured([BIN, "compute", "--pad", "1000000000", "-o", out])
    check(rc == 1 and "--pad: position 1000000000 is past the 16777216 keys" in err,
          f"--pad 1000000000 without the padding mask: exit 1 ({rc}: {err.strip()})")
    check(peak < 300 * MB, f"--pad 1000000000 refused at a {peak / MB:.0f} MB peak")
    rc, err, _ = run_measured([BIN, "compute", "--pad", "2", "-o", out])
    check(rc == 1 and "--pad hides keys of the padding mask, but the mask is none; give --mask padding" in err,
          f"--pad without the padding mask: exit 1 ({rc}: {err.strip()})")
    rc, err, _ = run_measured([BIN, "compute", "--text", "the cat sat", "--mask", "padding",
                               "--pad", "1,3", "-o", out])
    check(rc == 1 and "--pad: position 3 is past the 3 keys of the scene (positions 0…2)" in err,
          f"--pad past the sentence: exit 1 ({rc}: {err.strip()})")
    rc, err, _ = run_measured([BIN, "compute", "--text", "the cat sat", "--mask", "padding",
                               "--pad", "2", "-o", out])
    check(rc == 0, f"--pad inside the sentence: exit 0 ({err.strip()})")

    # A tokenizer.json whose normaliser multiplies the text a thousandfold three times: 1 kB,
    # 1 MB, then 1 GB, refused at the third Replace, by the file and the normaliser's place.
    llama = os.path.join(tmp, "llama")
    llama_tiny.tiny_folder(llama, 5, llama_tiny.config("llama", layers=1))
    tok_path = os.path.join(llama, "tokenizer.json")
    tok = json.load(open(tok_path))
    tok["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"String": "a"}, "content": "a" * 1000}] * 4}
    json.dump(tok, open(tok_path, "w"))
    for cmd in ("compute", "render"):
        target = os.path.join(tmp, "out.npz" if cmd == "compute" else "out.png")
        rc, err, peak = run_measured([BIN, cmd, "--model", llama, "--text", "a",
                                      "--memory-budget", "200M", "-o", target])
        check(rc == 4 and f"{tok_path}: normalizer.normalizers[2] (Replace), from 1.0 MB of text: "
              "the normalised text = 1.0 GB, more than the 200 MB memory budget" in err
              and target not in err,
              f"{cmd}: the multiplying normaliser is refused by name, not the output ({rc}: {err.strip()})")
        check(peak < 200 * MB, f"{cmd}: the normaliser refused at a {peak / MB:.0f} MB peak, under the budget")
    # An added token normalised as the tokenizer is loaded: the same refusal, exit 4.
    tok["added_tokens"] = [{"id": 1, "content": "a", "single_word": False, "lstrip": False,
                            "rstrip": False, "normalized": True, "special": False}]
    json.dump(tok, open(tok_path, "w"))
    rc, err, peak = run_measured([BIN, "compute", "--model", llama, "--text", "the",
                                  "--memory-budget", "200M", "-o", out])
    check(rc == 4 and f"{tok_path}: normalizer.normalizers[2] (Replace)" in err,
          f"an added token multiplied as the tokenizer loads: exit 4 ({rc}: {err.strip()})")
    check(peak < 200 * MB, f"the added token refused at a {peak / MB:.0f} MB peak")

    # render --size: the estimate covers what the figure really takes (its peak less a small
    # render's), and is not far above it; the budget is enforced on it before the work.
    for size, ext, what in (("4000x4000", "png", "a 4000 × 4000 pixel image"),
                            ("3000x3000", "pdf", "a 3000 × 3000 figure as PDF")):
        target = os.path.join(tmp, "fig." + ext)
        rc, err, base = run_measured([BIN, "render", "--size", "200x150", "-o", target])
        check(rc == 0, f"render --size 200x150 -o .{ext}: exit 0 ({err.strip()})")
        rc, err, peak = run_measured([BIN, "render", "--size", size, "-o", target])
        check(rc == 0, f"render --size {size} -o .{ext}: exit 0 ({err.strip()})")
        need = peak - base
        rc, err, _ = run_measured([BIN, "render", "--size", size, "--memory-budget", str(int(need)),
                                   "-o", target])
        check(rc == 4 and what in err,
              f"render --size {size} -o .{ext} refused with a budget of the {need / MB:.0f} MB it takes: exit 4 ({rc}: {err.strip()})")
        rc, err, _ = run_measured([BIN, "render", "--size", size, "--memory-budget",
                                   str(int(1.25 * need)), "-o", target])
        check(rc == 0, f"render --size {size} -o .{ext} within 1.25 times the {need / MB:.0f} MB it takes: exit 0 ({err.strip()})")

    # A symbolic link to itself as the weights: a loop, not a missing file.
    for name, make in (("llama", lambda d: llama_tiny.tiny_folder(d, 5, llama_tiny.config("llama", layers=1))),
                       ("gpt2", lambda d: tiny_folder(d, 11, 2))):
        folder = os.path.join(tmp, "loop-" + name)
        make(folder)
        weights = os.path.join(folder, "model.safetensors")
        os.remove(weights)
        os.symlink("model.safetensors", weights)
        rc, err, _ = run_measured([BIN, "compute", "--model", folder, "--text", "the", "-o", out])
        check(rc == 2 and "model.safetensors" in err and "symbolic link" in err and "loop" in err
              and "no model.safetensors" not in err,
              f"{name}: a looping model.safetensors is named a loop ({rc}: {err.strip()})")
finish()
PY
