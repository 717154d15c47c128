# A session says what it opens: a session whose model folder holds another model than it
# recorded still runs it and says so on stderr (naming the folder and what differs); a relative
# model.path is taken relative to the session, whatever the working directory.
source "$(dirname "$0")/lib.sh"
require_numpy
/usr/bin/python3 "$HERE/../core/gpt2_tiny.py" "$TMP/models/m" 11 3 >/dev/null ||
  { fail "gpt2_tiny.py could not write the folder"; finish; }
mkdir -p "$TMP/sessions"

session() {  # session FILE IDENTITY_JSON
  printf '{"format": "attnscope-session", "version": 1, "scene": {"text": "the cat"},
  "model": {"path": "../models/m", "layer": 0%s}}\n' "${2:+, \"identity\": $2}" >"$1"
}
# run SESSION: compute from / (so that a path resolved against the working directory fails).
run() { (cd / && "$BIN" compute "$1" --stages weights -o "$TMP/out.npz") >"$TMP/out" 2>"$TMP/err"; }

S="$TMP/sessions/s.attnscope"
session "$S" '{"family": "bert", "layers": 2, "heads": 2, "d_model": 8, "vocab": 40, "hash": "fnv1a64:0000000000000000"}'
if run "$S"; then pass; else fail "a session of another family did not run: $(cat "$TMP/err")"; fi
expect_err "attnscope: warning: $S: the model folder $TMP/sessions/../models/m holds another model than when the session was saved: family GPT-2 (gpt2) instead of BERT (bert), 3 layers instead of 2, 258 vocabulary entries instead of 40; it runs the folder as it is now (save the session to record it)" \
  "another family is named"

# The same family and shapes, another hash: said with both hashes.
session "$S" '{"family": "gpt2", "layers": 3, "heads": 2, "d_model": 8, "vocab": 258, "hash": "fnv1a64:0000000000000000"}'
run "$S" && pass || fail "the session did not run: $(cat "$TMP/err")"
expect_err "the same family and shapes, but config.json or the weight files' headers changed (fnv1a64:" \
  "a changed header is named"
hash="$(sed -n 's/.*changed (\(fnv1a64:[0-9a-f]*\) instead of.*/\1/p' "$TMP/err")"
[ ${#hash} -eq 24 ] && pass || fail "no hash in the warning: $(cat "$TMP/err")"

# The folder's own identity: no warning.
session "$S" "{\"family\": \"gpt2\", \"layers\": 3, \"heads\": 2, \"d_model\": 8, \"vocab\": 258, \"hash\": \"$hash\"}"
run "$S" && pass || fail "the session did not run: $(cat "$TMP/err")"
if grep -q "warning" "$TMP/err"; then fail "a warning for the same folder: $(cat "$TMP/err")"; else pass; fi

# An older session without an identity: opens as before, relative to the session, no warning.
session "$S" ''
run "$S" && pass || fail "an older session with a relative model.path did not run: $(cat "$TMP/err")"
if grep -q "warning" "$TMP/err"; then fail "a warning for an older session: $(cat "$TMP/err")"; else pass; fi

finish
