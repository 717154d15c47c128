# Writing never clobbers what it should not (issue 27, item 1). Every output goes to a unique
# temporary file beside it (".OUT.XXXXXX.attnscope-tmp", O_CREAT|O_EXCL) renamed over OUT when
# whole: a symbolic link planted at the old fixed name OUT.tmp is never written through; two
# runs writing one OUT leave one whole result; OUT keeps its permissions; a read-only OUT is
# refused unless --force (by its mode bits: this runs as root, who could write it anyway); OUT
# a symbolic link is refused by every command; OUT one of the inputs (by device and inode) is
# refused naming both; a killed run's temporary file blocks nothing and a later run removes it
# once it is a minute old and no live process holds its lock.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_tools unzip stat flock
require_numpy

IN="$FIX/gpt2_small_ex0.npz"
JSON="$FIX/bertviz_distilbert_headview.json"
mode() { stat -c %a "$1"; }
debris() { find "$TMP" -maxdepth 2 -name '*.attnscope-tmp' | wc -l; }

# 1. A symbolic link planted at the old fixed temporary name: its target stays as it was.
echo "victim" >"$TMP/victim"
for out in c.npz c.json s.csv r.png r.svg r.pdf; do
  ln -sf "$TMP/victim" "$TMP/$out.tmp"
done
expect_rc 0 "compute npz beside a planted OUT.tmp" -- "$BIN" compute "$IN" -o "$TMP/c.npz"
expect_rc 0 "compute json beside a planted OUT.tmp" -- "$BIN" compute "$IN" -o "$TMP/c.json"
expect_rc 0 "census beside a planted OUT.tmp" -- "$BIN" census "$IN" -o "$TMP/s.csv"
for out in r.png r.svg r.pdf; do
  expect_rc 0 "render $out beside a planted OUT.tmp" -- "$BIN" render --size 200x150 -o "$TMP/$out"
done
[ "$(cat "$TMP/victim")" = "victim" ] && pass || fail "a planted OUT.tmp link's target was overwritten"
unzip -tq "$TMP/c.npz" >/dev/null 2>&1 && pass || fail "c.npz is not a valid zip"
check_png "$TMP/r.png" 200x150
[ "$(debris)" -eq 0 ] && pass || fail "temporary files left: $(find "$TMP" -name '*.attnscope-tmp')"

# 2. OUT a symbolic link: refused by compute, census and render alike; the target unchanged.
for cmd in "compute $IN -o $TMP/link.npz" "census $IN -o $TMP/link.csv" "render -o $TMP/link.png"; do
  out="${cmd##* }"
  ln -sf "$TMP/victim" "$out"
  expect_rc 3 "$cmd through a link" -- "$BIN" $cmd && expect_err "symbolic link" "$cmd through a link"
  [ -L "$out" ] && [ "$(cat "$TMP/victim")" = "victim" ] && pass || fail "$cmd: the link or its target changed"
done

# 3. Permissions survive a replacement: a 0600 file stays 0600, a 0640 one 0640.
chmod 600 "$TMP/c.npz" && chmod 640 "$TMP/r.png" && chmod 600 "$TMP/s.csv"
expect_rc 0 "recompute over a 0600 npz" -- "$BIN" compute "$IN" --mask causal -o "$TMP/c.npz"
expect_rc 0 "re-render over a 0640 png" -- "$BIN" render --size 300x200 -o "$TMP/r.png"
expect_rc 0 "census over a 0600 csv" -- "$BIN" census "$IN" -o "$TMP/s.csv"
[ "$(mode "$TMP/c.npz")" = 600 ] && pass || fail "c.npz: mode $(mode "$TMP/c.npz"), expected 600"
[ "$(mode "$TMP/r.png")" = 640 ] && pass || fail "r.png: mode $(mode "$TMP/r.png"), expected 640"
[ "$(mode "$TMP/s.csv")" = 600 ] && pass || fail "s.csv: mode $(mode "$TMP/s.csv"), expected 600"
check_png "$TMP/r.png" 300x200
# A new file gets 0666 less the umask, as open(2) would give it.
(umask 027 && "$BIN" census "$IN" -o "$TMP/new.csv") && [ "$(mode "$TMP/new.csv")" = 640 ] && pass ||
  fail "new.csv: mode $(mode "$TMP/new.csv"), expected 640 under umask 027"

# 4. A read-only OUT (0444) is refused, unchanged, unless --force (which keeps its mode).
for cmd in "compute $IN -o $TMP/c.npz" "census $IN -o $TMP/s.csv" "render -o $TMP/r.png"; do
  out="${cmd##* }"
  chmod 444 "$out" && cp -p "$out" "$TMP/before"
  expect_rc 3 "$cmd over a read-only file" -- "$BIN" $cmd && expect_err "read-only" "$cmd over a read-only file" &&
    expect_err "--force" "$cmd over a read-only file"
  cmp -s "$out" "$TMP/before" && pass || fail "$cmd: the read-only file changed"
  expect_rc 0 "$cmd --force" -- "$BIN" $cmd --force
  [ "$(mode "$out")" = 444 ] && pass || fail "$cmd --force: mode $(mode "$out"), expected 444"
  chmod 644 "$out"
done

# 5. OUT one of the inputs, by name, by another name, through a hard link or a link to it.
cp "$IN" "$TMP/in.npz" && cp "$JSON" "$TMP/in.json" && cp "$TMP/in.npz" "$TMP/in.copy"
ln "$TMP/in.npz" "$TMP/hard.npz" && ln -s "$TMP/in.npz" "$TMP/soft.npz"
expect_rc 3 "compute over its input" -- "$BIN" compute "$TMP/in.npz" -o "$TMP/in.npz" &&
  expect_err "is the input $TMP/in.npz" "compute over its input"
expect_rc 3 "compute over its input, another spelling" -- "$BIN" compute "$TMP/in.npz" -o "$TMP/./in.npz" &&
  expect_err "is the input" "compute over its input, another spelling"
expect_rc 3 "compute over a hard link to its input" -- "$BIN" compute "$TMP/in.npz" -o "$TMP/hard.npz" &&
  expect_err "hard.npz: is the input $TMP/in.npz" "compute over a hard link to its input"
expect_rc 3 "compute from a link over its target" -- "$BIN" compute "$TMP/soft.npz" -o "$TMP/in.npz" &&
  expect_err "is the input $TMP/soft.npz" "compute from a link over its target"
expect_rc 3 "census over its input" -- "$BIN" census "$TMP/in.json" -o "$TMP/in.json" &&
  expect_err "is the input" "census over its input"
cmp -s "$TMP/in.npz" "$TMP/in.copy" && cmp -s "$TMP/in.json" "$JSON" && pass || fail "an input changed"

# 6. Two runs writing one OUT at once: every time a whole file, equal to one run's result.
WORDS="$(for i in $(seq 400); do printf 'w%d ' $((i % 37)); done)"
for seed in 1 2; do
  expect_rc 0 "reference compute, seed $seed" -- "$BIN" compute --text "$WORDS" --seed $seed -o "$TMP/ref$seed.npz"
done
for round in 1 2 3; do
  "$BIN" compute --text "$WORDS" --seed 1 -o "$TMP/same.npz" 2>"$TMP/e1" &
  p1=$!
  "$BIN" compute --text "$WORDS" --seed 2 -o "$TMP/same.npz" 2>"$TMP/e2" &
  p2=$!
  wait $p1; r1=$?
  wait $p2; r2=$?
  [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && pass || fail "concurrent round $round: exits $r1/$r2: $(cat "$TMP/e1" "$TMP/e2")"
  if /usr/bin/python3 - "$TMP/same.npz" "$TMP/ref1.npz" "$TMP/ref2.npz" <<'PY'
import sys, zipfile
import numpy as np
assert zipfile.ZipFile(sys.argv[1]).testzip() is None
got = np.load(sys.argv[1])
def same(ref):
    ref = np.load(ref)
    return sorted(ref.keys()) == sorted(got.keys()) and all(np.array_equal(ref[k], got[k]) for k in ref.keys())
assert same(sys.argv[2]) or same(sys.argv[3]), "a mix of both runs"
PY
  then pass; else fail "concurrent round $round: same.npz is not one run's whole result"; fi
done
[ "$(debris)" -eq 0 ] && pass || fail "concurrent runs left temporary files"

# 7. A killed run: its temporary file blocks nothing; once a minute old and unlocked, the next
# run writing that OUT removes it; a live run's (locked) is never removed.
BIG="$(for i in $(seq 4000); do printf 'w%d ' $((i % 101)); done)"
start_big() {  # start_big OUT: a long compute in the background; waits for its temporary file
  "$BIN" compute --text "$BIG" --stages weights -o "$1" 2>/dev/null &
  BIGPID=$!
  local name; name="$(basename "$1")"
  until [ -n "$(find "$(dirname "$1")" -maxdepth 1 -name ".$name.*.attnscope-tmp")" ]; do
    kill -0 $BIGPID 2>/dev/null || { fail "the long compute ended before its temporary file was seen"; return 1; }
    sleep 0.05  # polls for the file; the next check does not depend on how long this takes
  done
}
mkdir -p "$TMP/k"
start_big "$TMP/k/big.npz" && kill -9 $BIGPID && wait $BIGPID 2>/dev/null
left="$(find "$TMP/k" -name '.big.npz.*.attnscope-tmp')"
[ -n "$left" ] && pass || fail "SIGKILL left no temporary file (the test did not kill a write)"
expect_rc 0 "a run after a killed one" -- "$BIN" compute "$IN" -o "$TMP/k/big.npz"
unzip -tq "$TMP/k/big.npz" >/dev/null 2>&1 && pass || fail "big.npz after a killed run is not a valid zip"
[ -e "$left" ] && pass || fail "a young temporary file was removed (it might have been a live run's)"
touch -d '2 minutes ago' "$left"
expect_rc 0 "a run after a killed one, a minute later" -- "$BIN" compute "$IN" -o "$TMP/k/big.npz"
[ ! -e "$left" ] && pass || fail "the killed run's temporary file $left was not removed"
# A live run's temporary file, however old, holds its lock and stays (this shell holds the
# lock as a writing run does, on descriptor 9).
live="$TMP/k/.big.npz.AbC123.attnscope-tmp"
exec 9>"$live"
flock -x 9
touch -d '2 minutes ago' "$live"
expect_rc 0 "a run beside a live one" -- "$BIN" compute "$IN" -o "$TMP/k/big.npz"
[ -e "$live" ] && pass || fail "a live run's (locked) temporary file was removed"
exec 9>&-
expect_rc 0 "a run once the lock is gone" -- "$BIN" compute "$IN" -o "$TMP/k/big.npz"
[ ! -e "$live" ] && pass || fail "an unlocked old temporary file was not removed"

finish
