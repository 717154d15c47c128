# `cmake --install` into a temporary prefix gives a Debian desktop application: the binary, its
# .desktop entry, scalable icon, AppStream metadata and man page, all valid; the installed
# binary runs headless. The man page documents every option, subcommand and exit code that
# `attnscope --help` lists.
# Usage: bash install_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
BUILD="${1:?usage: $0 BUILD_DIR SOURCE_DIR}"
SRC="${2:?usage: $0 BUILD_DIR SOURCE_DIR}"
FAILS=0
CHECKS=0
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { CHECKS=$((CHECKS + 1)); }
for t in cmake desktop-file-validate appstreamcli file zcat; do
  command -v "$t" >/dev/null 2>&1 || { echo "FAIL: '$t' is not installed; scripts/common.sh installs it" >&2; exit 1; }
done
PREFIX="$(mktemp -d)"
trap 'rm -rf "$PREFIX"' EXIT

if ! cmake --install "$BUILD" --prefix "$PREFIX" >"$PREFIX.log" 2>&1; then
  echo "FAIL: cmake --install: $(tail -5 "$PREFIX.log")" >&2
  rm -f "$PREFIX.log"
  exit 1
fi
rm -f "$PREFIX.log"

for f in bin/attnscope share/applications/org.attnscope.AttnScope.desktop \
  share/icons/hicolor/scalable/apps/attnscope.svg share/metainfo/org.attnscope.AttnScope.metainfo.xml \
  share/man/man1/attnscope.1.gz share/doc/attnscope/LICENSE \
  share/doc/attnscope/LICENSE-Apache-2.0.txt share/doc/attnscope/LICENSE-MIT-transformer-explainer.txt; do
  [ -f "$PREFIX/$f" ] && pass || fail "not installed: $f"
done
[ -x "$PREFIX/bin/attnscope" ] && pass || fail "bin/attnscope is not executable"

desktop-file-validate "$PREFIX/share/applications/org.attnscope.AttnScope.desktop" >"$PREFIX/v" 2>&1 &&
  pass || fail "desktop-file-validate: $(cat "$PREFIX/v")"
appstreamcli validate --no-net "$PREFIX/share/metainfo/org.attnscope.AttnScope.metainfo.xml" >"$PREFIX/v" 2>&1 &&
  pass || fail "appstreamcli validate: $(cat "$PREFIX/v")"
grep -q '^Icon=attnscope$' "$PREFIX/share/applications/org.attnscope.AttnScope.desktop" && pass ||
  fail ".desktop Icon= does not name the installed icon"
grep -q '<svg' "$PREFIX/share/icons/hicolor/scalable/apps/attnscope.svg" && pass || fail "icon is not an SVG"

# The installed binary, headless: --version, then a render of a real example.
export QT_QPA_PLATFORM=offscreen
ver="$("$PREFIX/bin/attnscope" --version 2>&1)"
[[ "$ver" =~ ^attnscope\ [0-9]+\.[0-9]+\.[0-9]+$ ]] && pass || fail "--version printed '$ver'"
if "$PREFIX/bin/attnscope" render "$SRC/tests/data/real/gpt2_small_ex0.npz" --layer 5 --size 640x480 \
  -o "$PREFIX/out.png" >"$PREFIX/r" 2>&1; then
  got="$(file -b "$PREFIX/out.png" | sed -n 's/^PNG image data, \([0-9]*\) x \([0-9]*\),.*/\1x\2/p')"
  [ "$got" = "640x480" ] && pass || fail "installed render: PNG '$got', expected 640x480"
else
  fail "installed render failed: $(head -c 400 "$PREFIX/r")"
fi

# The Python module: under a private prefix in lib/python3.X/site-packages (for --prefix ~/.local
# the user's site folder), imported from there, finding the installed program on PATH, and
# drawing a figure through it from arrays; for the package's /usr in Debian's dist-packages.
pydir="$(ls -d "$PREFIX"/lib/python3.*/site-packages 2>/dev/null | head -n 1)"
if [ -f "$pydir/attnscope/__init__.py" ] && [ -f "$pydir/attnscope/views.py" ]; then
  pass
  if PATH="$PREFIX/bin:$PATH" PYTHONPATH="$pydir" /usr/bin/python3 - "$pydir" "$PREFIX/py.png" \
    >"$PREFIX/py" 2>&1 <<'PY'
import sys, numpy as np, attnscope
assert attnscope.__file__.startswith(sys.argv[1]), attnscope.__file__
assert attnscope.find_app().startswith(sys.argv[1].split("/lib/")[0]), attnscope.find_app()
w = np.full((2, 3, 3), 1 / 3, dtype=np.float32)
out = attnscope.render({"attention": w, "tokens": ["a", "b", "c"]}, out=sys.argv[2], size=(320, 240))
print(out)
PY
  then
    got="$(file -b "$PREFIX/py.png" | sed -n 's/^PNG image data, \([0-9]*\) x \([0-9]*\),.*/\1x\2/p')"
    [ "$got" = "320x240" ] && pass || fail "installed module's render: PNG '$got', expected 320x240"
  else
    fail "the installed Python module: $(head -c 600 "$PREFIX/py")"
  fi
else
  fail "not installed: lib/python3.X/site-packages/attnscope (found '${pydir:-nothing}')"
fi
if DESTDIR="$PREFIX/stage" cmake --install "$BUILD" --prefix /usr >"$PREFIX/s" 2>&1; then
  [ -f "$PREFIX/stage/usr/lib/python3/dist-packages/attnscope/__init__.py" ] && pass ||
    fail "--prefix /usr: attnscope not in lib/python3/dist-packages"
  [ -z "$(find "$PREFIX/stage" -name '*.pyc' -o -name __pycache__)" ] && pass ||
    fail "--prefix /usr: compiled Python files installed"
else
  fail "cmake --install --prefix /usr with DESTDIR: $(tail -5 "$PREFIX/s")"
fi

# The man page covers everything --help lists: options, subcommands and exit codes.
zcat "$PREFIX/share/man/man1/attnscope.1.gz" | sed 's/\\-/-/g; s/\\f[BIRP]//g' >"$PREFIX/man.txt"
"$PREFIX/bin/attnscope" --help >"$PREFIX/help.txt" 2>&1
opts="$(grep -oE -- '--[a-z][a-z0-9-]*' "$PREFIX/help.txt" | sort -u)"
[ -n "$opts" ] && pass || fail "--help lists no options"
for o in $opts; do
  grep -qF -- "$o" "$PREFIX/man.txt" && pass || fail "man page lacks option $o"
done
for sub in $(sed -n 's/^  attnscope \([a-z][a-z]*\) .*/\1/p' "$PREFIX/help.txt" | sort -u); do
  grep -q "^\.B $sub\$" "$PREFIX/man.txt" && pass || fail "man page lacks subcommand $sub"
done
codes="$(sed -n 's/^Exit codes: //p' "$PREFIX/help.txt" | grep -oE '(^|, )[0-9]+' | grep -oE '[0-9]+')"
[ -n "$codes" ] && pass || fail "--help lists no exit codes"
exit_section="$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$PREFIX/man.txt")"
for c in $codes; do
  grep -q "^$c\$" <<<"$(sed -n 's/^\.B //p' <<<"$exit_section")" && pass || fail "man page lacks exit code $c"
done

echo "$CHECKS checks passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
