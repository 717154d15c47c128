# Requests over the memory budget or the free disk are refused up front with their size and exit
# code 4; inputs that are not regular files are refused at once (exit 2); a long text renders in
# bounded memory; compute --stages writes only the named stages, tile by tile for long scenes.
source "$(dirname "$0")/lib.sh"
require_numpy

words() { /usr/bin/python3 -c "import sys; print(' '.join('w%d' % (i % 97) for i in range(int(sys.argv[1]))))" "$1"; }
words 30000 >"$TMP/t30k.txt"
words 3000 >"$TMP/t3k.txt"

expect_rc 4 "d_model 1e8" -- "$BIN" render --d-model 100000000 -o "$TMP/d.png" &&
  expect_err "d_model 100000000" "d_model message" && expect_err "160 PB" "d_model size" &&
  expect_err "memory budget" "d_model names the budget"
expect_rc 4 "30k all stages over a 1G budget as JSON" -- \
  "$BIN" compute "$TMP/t30k.txt" --memory-budget 1G -o "$TMP/c.json" &&
  expect_err "30000 tokens × 4 heads × 5 stages" "30k message names the request" &&
  expect_err "use --stages weights" "30k message names the way out"
[ -e "$TMP/c.json" ] && fail "a refused compute left a file"
expect_rc 4 "scene over a 10M budget" -- "$BIN" render "$TMP/t3k.txt" --memory-budget 10M -o "$TMP/x.png" &&
  expect_err "10 MB memory budget" "budget in the message"
expect_rc 4 "huge picture" -- "$BIN" render --size 20000x20000 --dpi 2400 -o "$TMP/big.png" &&
  expect_err "500000 × 500000 pixel image" "picture size in the message"
expect_rc 1 "bad budget" -- "$BIN" render --memory-budget 12X -o "$TMP/x.png" &&
  expect_err "--memory-budget" "bad budget names the option"
expect_rc 1 "--stages typo" -- "$BIN" compute --stages weights,raws -o "$TMP/x.npz" &&
  expect_err "raws" "stage typo named"
grep -q "std::bad_alloc" "$TMP/err" && fail "bad_alloc text reached the user"

mkfifo "$TMP/fifo"
expect_rc 2 "FIFO" -- timeout 10 "$BIN" render "$TMP/fifo" -o "$TMP/f.png" && expect_err "FIFO" "FIFO named"
expect_rc 2 "directory" -- "$BIN" render "$TMP" -o "$TMP/f.png" && expect_err "directory" "directory named"
expect_rc 2 "device" -- "$BIN" render /dev/zero -o "$TMP/f.png" && expect_err "character device" "device named"

# A long text: streamed, so it renders within a small memory budget.
expect_rc 0 "3k tokens under a 200M budget" -- "$BIN" render "$TMP/t3k.txt" --memory-budget 200M -o "$TMP/r.png" &&
  check_png "$TMP/r.png" 1200x900
# compute --stages on a streamed scene: weights and output only, rows summing to 1.
expect_rc 0 "compute --stages weights,output" -- \
  "$BIN" compute "$TMP/t3k.txt" --stages weights,output --heads 2 -o "$TMP/w.npz"
/usr/bin/python3 - "$TMP/w.npz" >"$TMP/py" 2>&1 <<'PY' || fail "stages check: $(cat "$TMP/py")"
import sys, numpy as np
z = np.load(sys.argv[1])
assert "weights" in z and "output" in z and "raw" not in z and "masked" not in z, list(z.keys())
w = z["weights"]
assert w.shape == (2, 3000, 3000), w.shape
assert np.allclose(w.sum(-1), 1, atol=1e-4)
assert z["output"].shape == (2, 3000, 32), z["output"].shape
PY
# --stages all (the default the help names) writes what no --stages writes.
expect_rc 0 "compute --stages all" -- "$BIN" compute --stages all -o "$TMP/all.npz" &&
  expect_rc 0 "compute, no --stages" -- "$BIN" compute -o "$TMP/default.npz"
/usr/bin/python3 - "$TMP/all.npz" "$TMP/default.npz" >"$TMP/py" 2>&1 <<'PY' || fail "--stages all: $(cat "$TMP/py")"
import sys, numpy as np
a, d = np.load(sys.argv[1]), np.load(sys.argv[2])
assert sorted(a.files) == sorted(d.files), (a.files, d.files)
assert {"raw", "scaled", "masked", "weights", "output"} <= set(a.files), a.files
for k in a.files:
    assert np.array_equal(a[k], d[k]), k
PY
pass
finish
