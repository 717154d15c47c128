#!/usr/bin/env bash
# AttnScope — the repository's files, NUL-separated and relative to ROOT, for the checks that go
# over every file (file size, formatting). GPL-3.0-or-later.
# In a git checkout: git's list. Outside one (a release tarball, `git archive`, a copy): every file
# under ROOT but .git and the build trees (folders holding a CMakeCache.txt), so the rules hold
# the same without git instead of being skipped. Prints on stderr which list it used.
# Usage: repo_files.sh ROOT [PATHSPEC-GLOB…]   e.g. repo_files.sh . '*.cpp' '*.hpp'
set -euo pipefail
root=$1
shift
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "repo_files: git ls-files" >&2
  git ls-files -z -- "$@"
  exit 0
fi
echo "repo_files: no git checkout at $root; find" >&2
# build/ holds build trees and the test set-up's npm references (node_modules), never sources.
prune=(-name .git -o -path ./build -o -name node_modules)
while IFS= read -r -d '' cache; do
  prune+=(-o -path "$(dirname "$cache")")
done < <(find . -name CMakeCache.txt -print0)
names=()
for glob in "$@"; do
  names+=(${names[0]+-o} -name "$glob")
done
if [ ${#names[@]} -eq 0 ]; then names=(-true); fi
find . \( "${prune[@]}" \) -prune -o -type f \( "${names[@]}" \) -printf '%P\0' | sort -z
