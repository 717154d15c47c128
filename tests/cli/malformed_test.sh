# Every file of the malformed corpus gives its message on stderr and exit code 2 (input error).
source "$(dirname "$0")/lib.sh"
CORPUS="$HERE/../core/data/malformed"
# A check that cannot run fails: the corpus is committed (tests/core/data/make_npy_fixtures.py).
[ -f "$CORPUS/expected.tsv" ] ||
  { echo "FAIL: the malformed corpus $CORPUS/expected.tsv is missing (tests/core/data/make_npy_fixtures.py writes it)" >&2; exit 1; }

while IFS=$'\t' read -r name expected; do
  case "$name" in ''|'#'*) continue ;; *.csv) continue ;; esac  # .csv: embeddings, not a scene
  expect_rc 2 "$name" -- "$BIN" compute "$CORPUS/$name" -o "$TMP/out.npz" || continue
  expect_err "$expected" "$name"
  expect_err "$name" "$name names the file"
  [ -e "$TMP/out.npz" ] && { fail "$name: an output was written"; rm -f "$TMP/out.npz"; }
done <"$CORPUS/expected.tsv"
# Every listed file was tried: an empty or unreadable list checks nothing.
[ "$CHECKS" -gt 0 ] || fail "$CORPUS/expected.tsv lists no file to check"

finish
