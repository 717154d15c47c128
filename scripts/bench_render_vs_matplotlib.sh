#!/usr/bin/env bash
# Times `attnscope render heads.npy -o grid.png` for a [12,512,512] float32 attention tensor, as a
# whole process, against the equivalent matplotlib script (load the .npy, 3×4 imshow grid with
# viridis, token tick labels, titles and a colour bar, savefig at dpi 100). Target: attnscope
# ≤ 0.1× matplotlib.
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

# What a user writes for the same figure as `attnscope render`'s: a 4 × 3 grid at 1200 × 900 px
# (12 × 9 in at dpi 100), a title per head, every 49th token as a tick label on both axes (x
# labels turned 60°), one shared colour bar labelled "weight", laid out so that nothing overlaps.
cat >"$WORK/mpl.py" <<'PY'
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
a = np.load(sys.argv[1])
tokens = [str(i) for i in range(a.shape[-1])]
ticks = list(range(0, a.shape[-1], 49))
fig, axes = plt.subplots(4, 3, figsize=(12, 9), layout="constrained")  # no overlaps
for h, ax in enumerate(axes.flat):
    im = ax.imshow(a[h], cmap="viridis", vmin=0, vmax=a.max())
    ax.set_title(f"Head {h + 1}", fontsize=8)
    ax.set_xticks(ticks, [tokens[t] for t in ticks], rotation=60, fontsize=7)
    ax.set_yticks(ticks, [tokens[t] for t in ticks], fontsize=7)
fig.colorbar(im, ax=axes.ravel().tolist(), label="weight")
fig.savefig(sys.argv[2], dpi=100)
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
      f"ratio {r['attnscope'] / r['matplotlib']:.3f} (target <= 0.1)")
PY
else
  mean() {  # mean RUNS command…: average wall time in seconds
    local runs="$1"; shift; local t0 t1
    t0=$(date +%s.%N); for _ in $(seq "$runs"); do "$@" >/dev/null; done; t1=$(date +%s.%N)
    echo "($t1 - $t0) / $runs" | bc -l
  }
  a=$(mean 10 $ATTN_CMD); m=$(mean 5 $MPL_CMD)
  printf 'attnscope %.3f s, matplotlib %.3f s, ratio %.3f (target <= 0.1)\n' "$a" "$m" "$(echo "$a / $m" | bc -l)"
fi
