# Issue 26, items 11 and 12: bad input says the plain fact ("is a directory", "file is empty"),
# and a view that cannot be drawn for the data exits non-zero with the reason instead of
# writing a PNG of a sentence.
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/folder.json"
expect_rc 2 "directory" -- "$BIN" render "$TMP/folder.json" -o "$TMP/d.png" &&
  expect_err "is a directory" "says it is a directory"
: >"$TMP/empty.json"
expect_rc 2 "empty file" -- "$BIN" render "$TMP/empty.json" -o "$TMP/e.png" &&
  expect_err "empty.json: file is empty" "says the file is empty"
: >"$TMP/empty.npy"
expect_rc 2 "empty npy" -- "$BIN" compute "$TMP/empty.npy" -o "$TMP/e.npz" &&
  expect_err "file is empty" "says the .npy is empty"

# BertViz weights only: no query or key vectors to draw the neuron or query–key view from.
for view in neuron qk; do
  rm -f "$TMP/$view.png"
  expect_rc 2 "render $view on weights" -- "$BIN" render "$FIX/bertviz_distilbert_headview.json" \
    --view $view -o "$TMP/$view.png" &&
    expect_err "needs query and key vectors" "$view says why it cannot be drawn"
  [ ! -e "$TMP/$view.png" ] && pass || fail "$view wrote a PNG it could not draw"
done
# The views that can be drawn still are.
expect_rc 0 "render lines on weights" -- "$BIN" render "$FIX/bertviz_distilbert_headview.json" \
  --view lines --size 800x500 -o "$TMP/lines.png" && check_png "$TMP/lines.png" 800x500
finish
