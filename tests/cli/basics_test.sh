# --help, --version, usage errors (exit 1), input errors (2), output errors (3).
source "$(dirname "$0")/lib.sh"

expect_rc 0 "--help" -- "$BIN" --help && grep -q "attnscope render" "$TMP/out" && grep -q "Exit codes" "$TMP/out" || fail "--help text"
# The formats --help lists are the man page's (both made from core/src/io/formats.cpp).
man_formats=$(sed -n '/^\.nf .*formats\.cpp/,/^\.fi/p' "$(dirname "$0")/../../resources/man/attnscope.1" | sed '1d;$d;s/\\e/\\/g')
[ -n "$man_formats" ] && grep -qxF -- "$(head -1 <<<"$man_formats")" "$TMP/out" || fail "--help lacks the man page's formats"
while IFS= read -r line; do grep -qxF -- "$line" "$TMP/out" || fail "--help lacks format line: $line"; done <<<"$man_formats"
expect_rc 0 "render --help" -- "$BIN" render --help && grep -q -- "--temperature" "$TMP/out" || fail "render --help text"
expect_rc 0 "--version" -- "$BIN" --version && grep -Eq '^attnscope [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/out" || fail "--version text"

# Usage errors: exit 1 and a message on stderr, nothing on stdout.
expect_rc 1 "no -o" -- "$BIN" render && expect_err "no output file" "no -o"
expect_rc 1 "bad extension" -- "$BIN" render -o "$TMP/x.bmp" && expect_err "x.bmp" "bad extension"
expect_rc 1 "compute to png" -- "$BIN" compute -o "$TMP/x.png" && expect_err "compute writes .npz or .json" "compute to png"
expect_rc 1 "unknown option" -- "$BIN" render --frobnicate -o "$TMP/x.png" && expect_err "frobnicate" "unknown option"
expect_rc 1 "bad mask" -- "$BIN" render --mask diagonal -o "$TMP/x.png" && expect_err "diagonal" "bad mask"
expect_rc 1 "bad size" -- "$BIN" render --size 12by3 -o "$TMP/x.png" && expect_err "--size" "bad size"
expect_rc 1 "bad dpi" -- "$BIN" render --dpi 0 -o "$TMP/x.png" && expect_err "--dpi" "bad dpi"
expect_rc 1 "bad view" -- "$BIN" render --view nothing -o "$TMP/x.png" && expect_err "--view" "bad view"
expect_rc 1 "bad temperature" -- "$BIN" render --temperature hot -o "$TMP/x.png" && expect_err "--temperature" "bad temperature"
expect_rc 1 "heads not dividing d_model" -- "$BIN" render --heads 5 --d-model 64 -o "$TMP/x.png"
expect_rc 1 "head out of range" -- "$BIN" render --head 9 -o "$TMP/x.png" && expect_err "--head" "head out of range"
expect_rc 1 "layer out of range" -- "$BIN" render --layer 3 -o "$TMP/x.png" && expect_err "--layer" "layer out of range"
[ -e "$TMP/x.png" ] && fail "a usage error wrote an output file"

# Input errors: exit 2, the message names the file.
expect_rc 2 "missing file" -- "$BIN" render "$TMP/nope.npy" -o "$TMP/x.png" && expect_err "nope.npy" "missing file"
printf 'not numpy' >"$TMP/junk.npy"
expect_rc 2 "junk npy" -- "$BIN" compute "$TMP/junk.npy" -o "$TMP/x.npz" && expect_err "junk.npy" "junk npy"

# Output errors: exit 3.
expect_rc 3 "missing output folder" -- "$BIN" render -o "$TMP/no/such/dir/x.png" && expect_err "does not exist" "missing output folder"
mkdir -p "$TMP/ro" && chmod 500 "$TMP/ro"
if [ "$(id -u)" -ne 0 ]; then  # root can write anywhere
  expect_rc 3 "read-only folder" -- "$BIN" render -o "$TMP/ro/x.png"
fi

# No display needed: with QT_QPA_PLATFORM and DISPLAY unset the subcommands go offscreen.
expect_rc 0 "no display" -- env -u QT_QPA_PLATFORM -u DISPLAY -u WAYLAND_DISPLAY "$BIN" render -o "$TMP/nodisplay.png"
check_png "$TMP/nodisplay.png" 1200x900
[ -s "$TMP/err" ] && fail "a successful render printed on stderr: $(head -c 300 "$TMP/err")"

finish
