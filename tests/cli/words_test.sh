# --merge-words: compute's words × words weights against an independent numpy merge
# (tests/cli/words_reference.py) on the real fixtures; render draws every view merged.
source "$(dirname "$0")/lib.sh"
require_numpy
REF="$HERE/words_reference.py"
PY=/usr/bin/python3  # Debian's python3-numpy (scripts/common.sh installs it)

check() {  # check FIXTURE COMPONENT WORDS
  local b="${1%%.*}"
  expect_rc 0 "compute $1 --merge-words" -- "$BIN" compute "$FIX/$1" --component "$2" \
    --merge-words -o "$TMP/$b.npz" &&
    { $PY "$REF" "$FIX/$1" "$TMP/$b.npz" "$3" && pass || fail "$1: merged words differ from numpy"; }
}
# GPT-2 (decoded: a leading space starts a word): " em" + "powers" are one word.
check gpt2_small_ex0.npz attention "Data,visualization,empowers,users,to"
# " dogs" + "." : an unmarked piece continues the word before it.
check bertviz_gpt2_headview.json 0 "The,quick,brown,fox,jumps,over,the,lazy,dogs."
# DistilBERT's sentence has no ## piece: nothing merges.
check bertviz_distilbert_headview.json 0 "[CLS],the,cat,sat,on,the,mat,[SEP]"

# Without the switch the pieces stay.
expect_rc 0 "compute without --merge-words" -- "$BIN" compute "$FIX/gpt2_small_ex0.npz" -o "$TMP/p.npz" &&
  { $PY -c "import sys, numpy as np; assert np.load(sys.argv[1])['weights'].shape[-1] == 6" "$TMP/p.npz" \
      && pass || fail "pieces were merged without --merge-words"; }

# Every view that has something to draw renders merged words headless.
for view in heads lines tokens rollout; do
  expect_rc 0 "render --view $view --merge-words" -- "$BIN" render "$FIX/gpt2_small_ex0.npz" \
    --merge-words --view $view --layer 4 --query 3 --size 900x600 -o "$TMP/$view.png" &&
    check_png "$TMP/$view.png" 900x600
done
# A merged word has no query or key vector of its own: the vector views are refused with the
# reason (exit 2) and write nothing, not a picture of the sentence.
for view in neuron qk; do
  expect_rc 2 "render --view $view --merge-words" -- "$BIN" render "$FIX/gpt2_small_ex0.npz" \
    --merge-words --view $view --layer 4 --query 3 --size 900x600 -o "$TMP/$view.png" &&
    expect_err "no query or key vector of its own" "says why $view cannot be drawn" &&
    { [ ! -e "$TMP/$view.png" ] && pass || fail "render --view $view wrote $TMP/$view.png"; }
done
finish
