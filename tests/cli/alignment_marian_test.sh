# `attnscope render --view lens:alignment` on Marian-shaped cross-attention (tests/data/marian):
# the figure says what the window says — the loaded file, its special tokens as text ("</s>",
# "<pad>"), the hard alignment one "target → source" pair a line — and not the untrained model's
# story. Read from the SVG's vector text.
source "$(dirname "$0")/lib.sh"
MARIAN="$FIX/../marian/marian_en_de_cross.json"
[ -f "$MARIAN" ] || { echo "FAIL: $MARIAN is missing" >&2; exit 1; }

expect_rc 0 "alignment svg" -- "$BIN" render "$MARIAN" --view lens:alignment --size 1200x800 \
  -o "$TMP/a.svg" && check_svg "$TMP/a.svg"
expect_rc 0 "alignment png" -- "$BIN" render "$MARIAN" --view lens:alignment --size 1200x800 \
  -o "$TMP/a.png" && check_png "$TMP/a.png" 1200x800
# Every <text> of the SVG, one a line, entities decoded (xmllint is installed with the tests).
/usr/bin/python3 - "$TMP/a.svg" >"$TMP/text.txt" <<'PY'
import sys
import xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}text"):
    print("".join(t.itertext()))
PY
has() {  # has LINE DESCRIPTION: a whole line of the figure's text
  grep -qxF -- "$1" "$TMP/text.txt" && pass || fail "$2: no line '$1' in the figure: $(head -c 600 "$TMP/text.txt" | tr '\n' '|')"
}
has "<pad> → ▁She" "first pair of the hard alignment"
has "</s> → </s>" "last pair of the hard alignment"
has "</s>" "the </s> tick label"
grep -qF "marian_en_de_cross.json" "$TMP/text.txt" && pass || fail "the figure does not name the file"
grep -qF "Loaded cross-attention" "$TMP/text.txt" && pass || fail "the readout does not say what is loaded"
grep -qF "hashed" "$TMP/text.txt" && fail "the figure tells the untrained model's story" || pass
grep -qF "additive (Bahdanau)" "$TMP/text.txt" && fail "the figure names a score that does not apply" || pass
# The pairs are listed whole: nine target tokens, nine lines with an arrow between tokens.
[ "$(grep -c ' → ' "$TMP/text.txt")" -ge 9 ] && pass || fail "fewer than nine pairs listed"

finish
