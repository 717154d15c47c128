# Which session matrix is W_Q, W_K, W_V and W_O, and their orientation: `attnscope compute` of
# committed sessions against PyTorch's nn.MultiheadAttention written out in numpy
# (weights_mapping_reference.py), which also shows that every swap or transpose of the four
# matrices would change the result beyond its bound.
source "$(dirname "$0")/lib.sh"
require_numpy
SESSIONS="$HERE/../core/data/sessions"
# pytorch_mapping: dot score, causal, 2 heads, d_model 8 (PyTorch's own case); explicit_weights:
# the general score q·W·kᵀ at temperature 0.5.
for s in pytorch_mapping explicit_weights; do
  [ -f "$SESSIONS/$s.attnscope" ] || { fail "$SESSIONS/$s.attnscope is missing"; continue; }
  expect_rc 0 "compute $s" -- "$BIN" compute "$SESSIONS/$s.attnscope" -o "$TMP/$s.npz" || continue
  /usr/bin/python3 "$HERE/weights_mapping_reference.py" "$SESSIONS/$s.attnscope" "$TMP/$s.npz" \
    && pass || fail "$s: the computed scene differs from numpy's MultiheadAttention"
done
finish
