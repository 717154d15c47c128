#!/usr/bin/env bash
# AttnScope — options that would change nothing are refused, by name (issue 35, items 10 and
# 11): a --knockout edge past the sequence, census --induction with --text (the test has its own
# tokens), generate --top-k 1.5, a switch given twice, patch --text; a word that is neither a
# command nor a file, without a display, is a message and exit 1, not an abort.
#   noop_options_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import os, subprocess, tempfile
import numpy as np
from cli_checks import BIN, check, finish
from gpt2_tiny import tiny_folder

def run(*args, env=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=env)

def refused(r, message, what):
    check(r.returncode == 1 and message in r.stderr, f"{what}: exit 1, '{message}' ({r.returncode}: {r.stderr.strip()})")

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    tiny_folder(model, 11, 2)
    out = os.path.join(tmp, "out.npz")
    text = "the cat sat"
    r = run("compute", "--model", model, "--text", text, "-o", out)
    check(r.returncode == 0, f"the plain run ({r.stderr.strip()})")
    n = len(np.load(out)["token_ids"])
    r = run("compute", "--model", model, "--text", text, "--knockout", f"1.0:{n - 1}>{n - 2}", "-o", out)
    check(r.returncode == 0, f"--knockout inside the {n} tokens: exit 0 ({r.stderr.strip()})")
    refused(run("compute", "--model", model, "--text", text, "--knockout", f"1.0:{n}>2", "-o", out),
            f"--knockout 1.0:{n}>2: query {n} is past the {n} tokens of --text (positions 0…{n - 1})",
            "a knockout query past the sequence")
    refused(run("render", "--model", model, "--text", text, "--knockout", f"0.1:*>{n + 5}",
                "-o", os.path.join(tmp, "r.png")),
            f"--knockout 0.1:*>{n + 5}: key {n + 5} is past the {n} tokens", "a knockout key past the sequence")
    refused(run("patch", "--model", model, "--clean", text, "--corrupt", "the dog sat", "--answer", "1",
                "--wrong", "2", "--knockout", f"0.0:1>{n}", "-o", out),
            f"--knockout 0.0:1>{n}: key {n} is past the {n} tokens of --clean", "patch: a knockout past the prompt")
    refused(run("census", "--model", model, "--induction", "--text", text, "-o", os.path.join(tmp, "c.csv")),
            "--induction runs on seeded random tokens repeated twice, not on --text", "census --induction --text")
    r = run("census", "--model", model, "--induction", "-o", os.path.join(tmp, "c.csv"))
    check(r.returncode == 0, f"census --induction alone: exit 0 ({r.stderr.strip()})")
    refused(run("generate", "--model", model, "--text", "the", "--top-k", "1.5", "-o", out),
            "--top-k 1.5: expected a whole number of tokens", "generate --top-k 1.5")
    r = run("generate", "--model", model, "--text", "the", "--top-k", "2", "--tokens", "2", "-o", out)
    check(r.returncode == 0, f"generate --top-k 2: exit 0 ({r.stderr.strip()})")
    refused(run("generate", "--model", model, "--text", "the", "--greedy", "--greedy", "-o", out),
            "--greedy is given 2 times; give it once", "generate --greedy --greedy")
    refused(run("compute", "--rollout", "--rollout", "-o", out),
            "--rollout is given 2 times; give it once", "compute --rollout --rollout")
    refused(run("patch", "--model", model, "--text", text, "-o", out),
            "Unknown option 'text'; patch runs two prompts: give --clean TEXT and --corrupt TEXT "
            "(patch takes --model, --clean, --corrupt, --answer, --wrong,", "patch --text")

    # No display, no platform: a mistyped command is said to be one; Qt is never asked for one.
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = ""
    # ("batch" is a command since issue #41: its misspelling stands in.)
    r = run("bacth", "x", env=env)
    check(r.returncode == 1 and "no such file or command 'bacth'" in r.stderr,
          f"attnscope bacth x without a display: exit 1 ({r.returncode}: {r.stderr.strip()})")
    r = run("-platform", "xcb", "bacth", env=env)
    check(r.returncode == 1 and "no such file or command 'bacth'" in r.stderr,
          f"attnscope -platform xcb bacth without a display: exit 1 ({r.returncode}: {r.stderr.strip()})")
    r = run(os.path.join(model, "config.json"), env=env)
    check(r.returncode == 1 and "no display to open the window on" in r.stderr,
          f"attnscope FILE without a display: exit 1 ({r.returncode}: {r.stderr.strip()})")
finish()
PY
