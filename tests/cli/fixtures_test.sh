# The real fixtures load, render (every view that applies, every figure format) and compute.
source "$(dirname "$0")/lib.sh"

for f in gpt2_small_ex0.npz bertviz_gpt2_headview.json bertviz_distilbert_headview.json; do
  in="$FIX/$f"
  [ -f "$in" ] || { fail "fixture $in missing"; continue; }
  b="${f%%.*}"
  expect_rc 0 "$f heads png" -- "$BIN" render "$in" -o "$TMP/$b.png" && check_png "$TMP/$b.png" 1200x900
  expect_rc 0 "$f model png" -- "$BIN" render "$in" --view model --size 800x600 -o "$TMP/$b-model.png" \
    && check_png "$TMP/$b-model.png" 800x600
  expect_rc 0 "$f layer 5 head 3 svg" -- "$BIN" render "$in" --layer 5 --head 3 -o "$TMP/$b.svg" \
    && check_svg "$TMP/$b.svg"
  expect_rc 0 "$f pdf" -- "$BIN" render "$in" --layer 5 --colormap magma -o "$TMP/$b.pdf" \
    && check_pdf "$TMP/$b.pdf" 1
  expect_rc 0 "$f compute npz" -- "$BIN" compute "$in" -o "$TMP/$b.npz"
  [ -s "$TMP/$b.npz" ] && [ "$(head -c 2 "$TMP/$b.npz")" = "PK" ] && pass || fail "$f: compute npz is not a zip"
  expect_rc 0 "$f compute json" -- "$BIN" compute "$in" -o "$TMP/$b.json"
  grep -q '"attnscope-compute"' "$TMP/$b.json" && pass || fail "$f: compute json lacks its format tag"
done

# Components are selectable by name (the npz has "scores" and "attention").
expect_rc 0 "component by name" -- "$BIN" render "$FIX/gpt2_small_ex0.npz" --component attention -o "$TMP/c.png"
expect_rc 1 "unknown component" -- "$BIN" render "$FIX/gpt2_small_ex0.npz" --component Cross -o "$TMP/c.png" \
  && expect_err "available" "unknown component lists the components"

# Live controls act on raw scores: without scaling the GPT-2 heads differ from the scaled ones.
expect_rc 0 "gpt2 scaled" -- "$BIN" compute "$FIX/gpt2_small_ex0.npz" --mask causal -o "$TMP/s.json"
expect_rc 0 "gpt2 unscaled" -- "$BIN" compute "$FIX/gpt2_small_ex0.npz" --mask causal --no-scale -o "$TMP/u.json"
cmp -s "$TMP/s.json" "$TMP/u.json" && fail "--no-scale did not change the GPT-2 weights" || pass

# The GPT-2 scores reproduce the model's weights under 1/sqrt(64) and the causal mask.
# (The same check runs in C++ in tests/app/cli_compute_test.cpp; this one is numpy's.)
expect_rc 0 "gpt2 compute" -- "$BIN" compute "$FIX/gpt2_small_ex0.npz" --mask causal --dk 64 -o "$TMP/g.npz"
require_numpy
if /usr/bin/python3 - "$FIX/gpt2_small_ex0.npz" "$TMP/g.npz" <<'PY'
import sys, numpy as np
ref = np.load(sys.argv[1])["attention"]
out = np.load(sys.argv[2])
w = out["weights"]
assert w.shape == ref.shape, (w.shape, ref.shape)
err = float(np.abs(w - ref).max())
print("max |weights - attention| =", err)
assert err <= 1e-6, err
PY
then pass; else fail "GPT-2 weights not reproduced"; fi

finish
