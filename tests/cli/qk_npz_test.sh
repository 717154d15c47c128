# An .npz with q and k [L,H,N,d_k] (written by numpy): compute's weights are numpy's softmax of
# q·kᵀ/√d_k, and the neuron and query–key views render from the real vectors.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3  # Debian's python3-numpy (scripts/common.sh installs it)
require_numpy
# The input files are numpy's: if numpy cannot write one, nothing after it can be checked.
fatal() { echo "FAIL: $*" >&2; exit 1; }

$PY - "$TMP/qk.npz" <<'PY' || fatal "numpy could not write the q/k file $TMP/qk.npz"
import sys, numpy as np
rng = np.random.default_rng(7)
q = rng.standard_normal((2, 3, 5, 8)).astype(np.float32)
k = rng.standard_normal((2, 3, 5, 8)).astype(np.float32)
v = rng.standard_normal((2, 3, 5, 8)).astype(np.float32)
np.savez(sys.argv[1], q=q, k=k, v=v, tokens=np.array(["the", "cat", "sat", "on", "mats"]))
PY
expect_rc 0 "compute q/k npz" -- "$BIN" compute "$TMP/qk.npz" -o "$TMP/out.npz"
$PY - "$TMP/qk.npz" "$TMP/out.npz" <<'PY' && pass || fail "weights from q/k differ from numpy"
import sys, numpy as np
d = np.load(sys.argv[1]); out = np.load(sys.argv[2])
s = np.einsum("lhid,lhjd->lhij", d["q"].astype(np.float64), d["k"].astype(np.float64)) / np.sqrt(8)
w = np.exp(s - s.max(-1, keepdims=True)); w /= w.sum(-1, keepdims=True)
err = np.abs(out["weights"] - w).max()
print("max |weights - numpy softmax(q k^T / sqrt 8)| =", err)
assert out["weights"].shape == (2, 3, 5, 5) and err < 1e-6
assert np.abs(out["raw"] - s * np.sqrt(8)).max() < 1e-5
PY
for view in neuron qk lines; do
  expect_rc 0 "render $view from q/k" -- "$BIN" render "$TMP/qk.npz" --view $view --layer 1 --query 2 \
    --size 900x600 -o "$TMP/$view.png" && check_png "$TMP/$view.png" 900x600
done
# A lone q is refused with the file's name.
$PY -c "import sys, numpy as np; np.savez(sys.argv[1], q=np.zeros((1,1,2,2), np.float32))" "$TMP/q.npz" ||
  fatal "numpy could not write the q-only file $TMP/q.npz"
expect_rc 2 "q without k" -- "$BIN" compute "$TMP/q.npz" -o "$TMP/x.npz" && expect_err "q.npz" "names the file"
finish
