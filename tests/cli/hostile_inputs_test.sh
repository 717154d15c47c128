# Hostile or careless command lines and input files get a clear refusal with the documented exit
# code, never a silent wrong answer, an abort (exit 134) or a standard library's text:
# non-decimal, NaN and infinite numbers; invalid UTF-8 in --text; options that do not apply to
# the input or are given twice; sizes beyond the memory budget (--pad, an npz member that
# inflates to gigabytes, a session's embedded data); inconsistent sessions.
source "$(dirname "$0")/lib.sh"
require_numpy
GPT2="$(cd "$FIX" && pwd)/gpt2_small_ex0.npz"  # absolute: sessions below name it
OUT="$TMP/out.png"

# refused CODE NEEDLE ARGS…: the command exits CODE, names NEEDLE, writes nothing, and no
# std:: text or "terminate" reaches stderr.
refused() {
  local code="$1" needle="$2"; shift 2
  rm -f "$OUT" "$TMP/out.npz"
  expect_rc "$code" "$*" -- "$BIN" "$@" || return
  expect_err "$needle" "$*"
  if grep -qE 'std::|_M_range_check|terminate called|basic_string' "$TMP/err"; then
    fail "$*: a standard library's text reached the user: $(cat "$TMP/err")"
  fi
  [ -e "$OUT" ] || [ -e "$TMP/out.npz" ] && fail "$*: an output was written"
  pass
}

# Item 5: numbers are finite decimals; sizes of at least one byte.
refused 1 "--dpi: 'nan' is not a resolution" render -o "$OUT" --dpi nan
refused 1 "--dpi: 'inf' is not a resolution" render -o "$OUT" --dpi inf
refused 1 "--dpi: '0x60' is not a resolution" render -o "$OUT" --dpi 0x60
refused 1 "--temperature: 'nan' is not a number" render -o "$OUT" --temperature nan
refused 1 "--temperature: 'inf' is not a number" render -o "$OUT" --temperature inf
refused 1 "--temperature: '1e39' is not a number" render -o "$OUT" --temperature 1e39
refused 1 "--sigma: 'inf' is not a positive number" render -o "$OUT" --sigma inf
refused 1 "--dk: 'nan' is not a positive number" render "$GPT2" -o "$OUT" --dk nan
refused 1 "--heads: '0x10' is not a positive integer" render -o "$OUT" --heads 0x10
refused 1 "--window: '0x10' is not a non-negative integer" render -o "$OUT" --window 0x10
refused 1 "--seed: '0x10' is not a non-negative integer" render -o "$OUT" --seed 0x10
refused 1 "--query: '0x1' is not a query index" render -o "$OUT" --query 0x1
refused 1 "--head: ' 1' is not a head index" render -o "$OUT" --head " 1"
refused 1 '--memory-budget: "0.5" is not a memory size (less than one byte' \
  render -o "$OUT" --memory-budget 0.5
refused 1 '--memory-budget: "0x10" is not a memory size' render -o "$OUT" --memory-budget 0x10
refused 1 '--memory-budget: "nan" is not a memory size' render -o "$OUT" --memory-budget nan
# Invalid UTF-8 in --text, named by its byte offset and value (Qt would turn it into U+FFFD).
refused 1 "--text: Invalid UTF-8 in the text at byte 4 (0xFF)" \
  render -o "$OUT" --text $'the \xff cat'
refused 1 "--text: Invalid UTF-8 in the text at byte 2 (0xC3): sequence is truncated" \
  render -o "$OUT" "--text=ab"$'\xc3'
refused 1 "--cross-text: Invalid UTF-8 in the text at byte 0 (0xC0)" \
  compute -o "$TMP/out.npz" --cross-text $'\xc0\xaf'

# Item 3: options are honoured or refused, never ignored.
refused 1 "--text gives the sentence of the default scene or of --model; $GPT2 brings its own" \
  render "$GPT2" --text "the cat" -o "$OUT"
refused 1 "--cross-text gives the sentence" render "$GPT2" --cross-text "a dog" -o "$OUT"
refused 1 "-o is given 2 times ($TMP/a.png, $OUT)" render -o "$TMP/a.png" -o "$OUT"
refused 1 "is given 2 times" render --output "$TMP/a.png" -o "$OUT"
refused 1 "--mask is given 2 times (causal, none)" render -o "$OUT" --mask causal --mask=none
refused 1 "--heads: not an option of loaded attention ($GPT2 has its own heads" \
  render "$GPT2" --heads 4 -o "$OUT"
refused 1 "--d-model, --score: not an option of loaded attention" \
  compute "$GPT2" --d-model 32 --score rbf -o "$TMP/out.npz"

# Item 4: sizes from the command line go through the budget before anything is allocated.
refused 4 "--pad position 99999999999 (a mask of 100000000000 keys) = 13 GB, more than the 1.0 GB memory budget" \
  render -o "$OUT" --memory-budget 1G --mask padding --pad 2,99999999999
refused 1 "--pad: '99999999999999999999' is not a list of positions" \
  render -o "$OUT" --pad 99999999999999999999

# An npz member whose entry declares 300 MB of zeros (300 kB deflated): refused by its
# declared size before it is inflated.
/usr/bin/python3 - "$TMP/bomb.npz" <<'PY'
import sys, zipfile
import numpy as np
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    buf = __import__("io").BytesIO()
    np.save(buf, np.full((1, 1, 4, 4), 0.25, np.float32))
    z.writestr("attention.npy", buf.getvalue())
    with z.open("tokens.npy", "w", force_zip64=True) as f:
        n = 300_000_000 // 4
        header = "{'descr': '<U1', 'fortran_order': False, 'shape': (%d,), }" % n
        header += " " * (63 - len(header) % 64) + "\n"
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        chunk = bytes(1 << 20)
        for _ in range(n * 4 // len(chunk)):
            f.write(chunk)
        f.write(bytes(n * 4 % len(chunk)))
PY
size=$(stat -c %s "$TMP/bomb.npz")
[ "$size" -lt 2000000 ] && pass || fail "the bomb npz is $size bytes, meant to be small"
refused 4 "bomb.npz: tokens.npy inflated into memory = 300 MB, more than the 100 MB memory budget" \
  compute "$TMP/bomb.npz" --memory-budget 100M -o "$TMP/out.npz"

# A session's text and embedded data are budgeted before they are parsed.
/usr/bin/python3 - "$TMP/big.attnscope" <<'PY'
import json, sys
rows = [[0.5] * 200 for _ in range(200)]
json.dump({"format": "attnscope-session", "version": 1, "scene": {},
           "data": {"path": "", "embedded": {"source": "x", "components": [
               {"name": "E", "q_tokens": ["a"] * 200, "k_tokens": ["a"] * 200, "layers": 1,
                "heads": 1, "are_scores": False, "d_k": 64, "matrices": [rows]}]}}},
          open(sys.argv[1], "w"))
PY
refused 4 "big.attnscope (" render "$TMP/big.attnscope" --memory-budget 1M -o "$OUT"
expect_err "of session JSON) parsed with its embedded data" "the session budget names what"

# Inconsistent sessions are bad files (exit 2), naming the file and the problem.
session() {  # session FILE SCENE_JSON [DATA_JSON]
  printf '{"format": "attnscope-session", "version": 1, "scene": %s%s}\n' "$2" \
    "${3:+, \"data\": $3}" >"$1"
}
session "$TMP/heads.attnscope" '{"heads": 3, "d_model": 64}'
refused 2 "$TMP/heads.attnscope: " render "$TMP/heads.attnscope" -o "$OUT"
expect_err "3" "the message names the heads"
refused 2 "$TMP/heads.attnscope: " compute "$TMP/heads.attnscope" -o "$TMP/out.npz"
# The same scene typed as options is the command line's mistake (exit 1).
refused 1 "" render --heads 3 --d-model 64 -o "$OUT"
session "$TMP/component.attnscope" '{}' "{\"path\": \"$GPT2\", \"component\": 999}"
refused 2 "component.attnscope: data.component is 999, but $GPT2 has 2 component(s)" \
  render "$TMP/component.attnscope" -o "$OUT"
session "$TMP/layer.attnscope" '{}' "{\"path\": \"$GPT2\", \"layer\": 99}"
refused 2 "layer.attnscope: data.layer is 99" render "$TMP/layer.attnscope" -o "$OUT"
session "$TMP/nul.attnscope" '{}' "{\"path\": \"$GPT2\\u0000.txt\"}"
refused 2 "data.path holds a NUL character at position ${#GPT2}" render "$TMP/nul.attnscope" -o "$OUT"
printf '{"format": "attnscope-session", "version": 1, "scene": {}, "model": {"path": "/tmp\\u0000x"}}' \
  >"$TMP/nulmodel.attnscope"
refused 2 "model.path holds a NUL character at position 4" render "$TMP/nulmodel.attnscope" -o "$OUT"

# A FIFO in a model folder is refused at once (a blocking open would wait for a writer).
/usr/bin/python3 "$HERE/../core/gpt2_tiny.py" "$TMP/tiny" >/dev/null
rm "$TMP/tiny/vocab.json" && mkfifo "$TMP/tiny/vocab.json"
refused 2 "$TMP/tiny/vocab.json (the vocabulary): is a FIFO, not a regular file" \
  compute --model "$TMP/tiny" --text "the cat" -o "$TMP/out.npz"

finish
