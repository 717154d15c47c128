#!/usr/bin/env bash
# Times `attnscope render heads.npy -o grid.png` for a [12,512,512] float32 attention tensor, as a
# whole process, against the equivalent matplotlib script (load the .npy, 3×4 imshow grid with
# viridis and a colour bar, savefig). Target: attnscope ≤ 0.2× matplotlib.
#   scripts/bench_render_vs_matplotlib.sh [ATTNSCOPE_BINARY]
# Needs python3-numpy and python3-matplotlib (Debian); uses hyperfine when installed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${1:-$ROOT/build/release/app/attnscope}"
PY=/usr/bin/python3
[ -x "$BIN" ] || { echo "no attnscope binary at $BIN (build first or pass its path)" >&2; exit 1; }
$PY -c "import numpy, matplotlib" 2>/dev/null || {
  echo "needs python3-numpy and python3-matplotlib: apt-get install python3-matplotlib" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export QT_QPA_PLATFORM=offscreen MPLBACKEND=Agg

# Softmax rows of random logits: a realistic, non-uniform [12,512,512] weights tensor.
$PY - "$WORK/heads.npy" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(0)
x = rng.standard_normal((12, 512, 512), dtype=np.float32) * 3
x = np.exp(x - x.max(axis=-1, keepdims=True))
np.save(sys.argv[1], (x / x.sum(axis=-1, keepdims=True)).astype(np.float32))
PY

cat >"$WORK/mpl.py" <<'PY'
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
a = np.load(sys.argv[1])
fig, axes = plt.subplots(3, 4, figsize=(12.5, 9))
for h, ax in enumerate(axes.flat):
    im = ax.imshow(a[h], cmap="viridis", vmin=0, vmax=a.max())
    ax.set_title(f"Head {h + 1}")
fig.colorbar(im, ax=axes.ravel().tolist())
fig.savefig(sys.argv[2], dpi=96)
PY

ATTN_CMD="$BIN render $WORK/heads.npy -o $WORK/grid.png"
MPL_CMD="$PY $WORK/mpl.py $WORK/heads.npy $WORK/mpl.png"
$ATTN_CMD && $MPL_CMD  # warm the page cache and check both work
file "$WORK/grid.png" "$WORK/mpl.png"

if command -v hyperfine >/dev/null; then
  hyperfine --warmup 2 --runs 10 --export-json "$WORK/h.json" -n attnscope "$ATTN_CMD" -n matplotlib "$MPL_CMD"
  $PY - "$WORK/h.json" <<'PY'
import json, sys
# Medians: a shared machine's other jobs add a long tail that would drag a mean around.
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"medians: attnscope {r['attnscope']:.3f} s, matplotlib {r['matplotlib']:.3f} s, "
      f"ratio {r['attnscope'] / r['matplotlib']:.3f} (target <= 0.2)")
PY
else
  mean() {  # mean RUNS command…: average wall time in seconds
    local runs="$1"; shift; local t0 t1
    t0=$(date +%s.%N); for _ in $(seq "$runs"); do "$@" >/dev/null; done; t1=$(date +%s.%N)
    echo "($t1 - $t0) / $runs" | bc -l
  }
  a=$(mean 10 $ATTN_CMD); m=$(mean 5 $MPL_CMD)
  printf 'attnscope %.3f s, matplotlib %.3f s, ratio %.3f (target <= 0.2)\n' "$a" "$m" "$(echo "$a / $m" | bc -l)"
fi
