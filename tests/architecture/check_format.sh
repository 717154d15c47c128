#!/usr/bin/env bash
# AttnScope — every C++ file of ours follows .clang-format. GPL-3.0-or-later.
# A check that cannot run fails: without clang-format (scripts/common.sh installs it) this says
# so and exits 1 rather than passing unchecked.
# Usage: check_format.sh CLANG_FORMAT REPOSITORY_ROOT (CLANG_FORMAT empty or missing: the failure)
set -u
tool=${1:-}
root=${2:?usage: $0 CLANG_FORMAT REPOSITORY_ROOT}
if [ -z "$tool" ] || [ "${tool%-NOTFOUND}" != "$tool" ] || ! command -v "$tool" >/dev/null 2>&1; then
  echo "FAIL: clang-format was not found when the build was configured ('$tool'); install it (scripts/common.sh) and configure again"
  exit 1
fi
files=$(bash "$root/tests/architecture/repo_files.sh" "$root" '*.cpp' '*.hpp' '*.h' | tr '\0' '\n') ||
  { echo "FAIL: cannot list the C++ files under $root"; exit 1; }
count=$(grep -c . <<<"$files")
[ "$count" -gt 0 ] || { echo "FAIL: no C++ file found under $root"; exit 1; }
cd "$root" || exit 1
tr '\n' '\0' <<<"$files" | xargs -0 -r "$tool" --dry-run --Werror || exit 1
echo "format: $count C++ files follow .clang-format ($("$tool" --version))"
