#!/usr/bin/env bash
# AttnScope — the architecture rules hold outside a git checkout too (a release tarball, a copy):
# the 400-line rule lists files with find instead of being skipped. GPL-3.0-or-later.
# Usage: without_git_test.sh REPOSITORY_ROOT
set -u
root=$(cd "${1:?usage: $0 REPOSITORY_ROOT}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# A tree with no .git anywhere above it: /tmp is not inside the checkout. A build tree in it
# (a CMakeCache.txt beside a long generated file) is not the project's and is left out.
mkdir -p "$tmp/tree/tests/architecture" "$tmp/tree/app/model" "$tmp/tree/core" "$tmp/tree/build/x"
cp "$root"/tests/architecture/{check_architecture.sh,repo_files.sh,unity_names.py,core_layers.py,core_state.py} \
  "$tmp/tree/tests/architecture/"
echo '# the tree holds no state to allow' >"$tmp/tree/tests/architecture/core_state_allowed.txt"
seq 400 >"$tmp/tree/core/fits.txt"
seq 2000 >"$tmp/tree/build/x/generated.cpp"
touch "$tmp/tree/build/CMakeCache.txt"
if ! out=$(cd "$tmp" && bash "$tmp/tree/tests/architecture/check_architecture.sh" "$tmp/tree" 2>&1); then
  fail "a tree within the rules fails without git: $out"
fi
grep -q "no git checkout" <<<"$out" || fail "the rule did not list the files with find: $out"
seq 401 >"$tmp/tree/core/too_long.txt"
if out=$(cd "$tmp" && bash "$tmp/tree/tests/architecture/check_architecture.sh" "$tmp/tree" 2>&1); then
  fail "a 401-line file passes the rules without git: $out"
fi
grep -q "core/too_long.txt: 401 lines" <<<"$out" || fail "the refusal does not name the file: $out"
grep -q "generated.cpp" <<<"$out" && fail "a build tree's file was checked: $out"

# The repository itself, as if git were absent.
if ! out=$(GIT_DIR="$tmp/no-such-git" bash "$root/tests/architecture/check_architecture.sh" "$root" 2>&1); then
  fail "the repository breaks the rules when checked without git: $out"
fi
grep -q "no git checkout" <<<"$out" || fail "GIT_DIR elsewhere still listed git's files: $out"

[ "$fails" -eq 0 ] && echo "architecture rules without git: a 401-line file is refused by name, build trees are left out"
[ "$fails" -eq 0 ]
