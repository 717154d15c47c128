#!/usr/bin/env bash
# AttnScope — an output inside a model's folder (issue 35, item 3): refused when it would replace
# a file the run reads (config.json, every weight shard the index names, the tokenizer files),
# allowed otherwise, so a second run writing DIR/out.npz replaces the first one's.
#   model_folder_output_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import filecmp, json, os, shutil, subprocess, tempfile
from cli_checks import BIN, check, finish
from gpt2_tiny import tiny_folder
import llama_tiny

def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)

with tempfile.TemporaryDirectory() as tmp:
    gpt2 = os.path.join(tmp, "gpt2")
    tiny_folder(gpt2, 11, 2)
    out = os.path.join(gpt2, "out.npz")
    for attempt in ("first", "second"):
        r = run("compute", "--model", gpt2, "--text", "the cat", "-o", out)
        check(r.returncode == 0, f"compute -o DIR/out.npz, {attempt} time: exit 0 ({r.stderr.strip()})")
    r = run("generate", "--model", gpt2, "--text", "the", "--tokens", "2", "-o", out)
    check(r.returncode == 0, f"generate over DIR/out.npz: exit 0 ({r.stderr.strip()})")
    # A file of the folder the run does not read is fair game too.
    open(os.path.join(gpt2, "notes.json"), "w").write("{}")
    r = run("compute", "--model", gpt2, "--text", "the cat", "-o", os.path.join(gpt2, "notes.json"))
    check(r.returncode == 0, f"compute over DIR/notes.json: exit 0 ({r.stderr.strip()})")
    # What the run reads is never replaced, by any command.
    keep = os.path.join(tmp, "keep")
    shutil.copytree(gpt2, keep)
    for name in ("config.json", "vocab.json"):
        target = os.path.join(gpt2, name)
        r = run("compute", "--model", gpt2, "--text", "the cat", "-o", target)
        check(r.returncode == 3 and f"{target}: is the input {target}" in r.stderr,
              f"compute -o DIR/{name}: exit 3, named as the input ({r.returncode}: {r.stderr.strip()})")
        check(filecmp.cmp(target, os.path.join(keep, name), shallow=False), f"{name} unchanged")

    # Llama: weights in a shard the index names whatever it is called, and tokenizer.json.
    llama = os.path.join(tmp, "llama")
    llama_tiny.tiny_folder(llama, 5, llama_tiny.config("llama", layers=1))
    weights = os.path.join(llama, "model.safetensors")
    header = json.loads(open(weights, "rb").read()[8:8 + int.from_bytes(open(weights, "rb").read(8), "little")])
    shard = os.path.join(llama, "shard.npz")
    os.rename(weights, shard)
    json.dump({"weight_map": {k: "shard.npz" for k in header if k != "__metadata__"}},
              open(os.path.join(llama, "model.safetensors.index.json"), "w"))
    shutil.copy(shard, os.path.join(tmp, "shard.copy"))
    r = run("compute", "--model", llama, "--text", "the cat", "-o", os.path.join(llama, "out.npz"))
    check(r.returncode == 0, f"the sharded folder runs ({r.stderr.strip()})")
    for cmd in (["compute", "--model", llama, "--text", "the cat"],
                ["generate", "--model", llama, "--text", "the", "--tokens", "1"],
                ["patch", "--model", llama, "--clean", "the cat", "--corrupt", "the dog",
                 "--answer", "1", "--wrong", "2"]):
        r = run(*cmd, "-o", shard)
        check(r.returncode == 3 and f"{shard}: is the input {shard}" in r.stderr,
              f"{cmd[0]} -o DIR/shard.npz (a shard the index names): exit 3 ({r.returncode}: {r.stderr.strip()})")
    check(filecmp.cmp(shard, os.path.join(tmp, "shard.copy"), shallow=False), "the shard unchanged")
    tok = os.path.join(llama, "tokenizer.json")
    r = run("compute", "--model", llama, "--text", "the cat", "-o", tok)
    check(r.returncode == 3 and "is the input" in r.stderr,
          f"compute -o DIR/tokenizer.json: exit 3 ({r.returncode}: {r.stderr.strip()})")
finish()
PY
