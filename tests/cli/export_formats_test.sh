# Every export format produces a valid file at the requested size and resolution.
source "$(dirname "$0")/lib.sh"

expect_rc 0 "default png" -- "$BIN" render -o "$TMP/a.png" && check_png "$TMP/a.png" 1200x900
expect_rc 0 "sized png" -- "$BIN" render --size 640x480 -o "$TMP/b.png" && check_png "$TMP/b.png" 640x480
# DPI scales the pixels (640×480 logical at 192 dpi = 1280×960) and is recorded in the file.
expect_rc 0 "hi-dpi png" -- "$BIN" render --size 640x480 --dpi 192 -o "$TMP/c.png" && check_png "$TMP/c.png" 1280x960
expect_rc 0 "svg" -- "$BIN" render --size 800x600 -o "$TMP/d.svg" && check_svg "$TMP/d.svg"
grep -q 'width="800' "$TMP/d.svg" && pass || fail "SVG width is not 800"
grep -q '<image' "$TMP/d.svg" && pass || fail "SVG heatmaps are not embedded images"
grep -q '<text' "$TMP/d.svg" && pass || fail "SVG has no vector text"
expect_rc 0 "pdf" -- "$BIN" render --size 800x600 -o "$TMP/e.pdf" && check_pdf "$TMP/e.pdf" 1
pdfinfo "$TMP/e.pdf" | grep -q "600 x 450 pts" && pass || fail "PDF page is not 600×450 pt"
pdftotext "$TMP/e.pdf" - | grep -q "Head" && pass || fail "PDF text is not vector text"
for view in heads model; do
  for ext in png svg pdf; do
    expect_rc 0 "$view $ext" -- "$BIN" render --view "$view" --heads 8 --mask causal -o "$TMP/v-$view.$ext"
  done
  check_png "$TMP/v-$view.png" 1200x900; check_svg "$TMP/v-$view.svg"; check_pdf "$TMP/v-$view.pdf" 1
done
# The playground and every lens render too (lens:NAME), as PNG and PDF.
expect_rc 0 "playground png" -- "$BIN" render --view playground --size 1000x700 -o "$TMP/pg.png" && check_png "$TMP/pg.png" 1000x700
expect_rc 0 "playground pdf" -- "$BIN" render --view playground -o "$TMP/pg.pdf" && check_pdf "$TMP/pg.pdf" 1
for lens in scaling entropy rank-collapse cost low-rank efficient alignment lookup; do
  expect_rc 0 "lens $lens" -- "$BIN" render --view "lens:$lens" --size 900x600 -o "$TMP/lens-$lens.png" \
    && check_png "$TMP/lens-$lens.png" 900x600
done
expect_rc 1 "unknown lens" -- "$BIN" render --view lens:nope -o "$TMP/nope.png" && expect_err "available" "unknown lens"

# --text and scene options reach the figure (different sentence, different bytes).
expect_rc 0 "text" -- "$BIN" render --text "A cat sat on the mat ." --size 640x480 -o "$TMP/t.png"
cmp -s "$TMP/t.png" "$TMP/b.png" && fail "--text did not change the figure" || pass

finish
