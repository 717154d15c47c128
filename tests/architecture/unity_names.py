#!/usr/bin/env python3
# AttnScope — names that two .cpp files of one unity-built library both define at file scope
# (in an anonymous namespace, or static). GPL-3.0-or-later.
# app, core and the core tests are unity builds (app/CMakeLists.txt, tests/core/CMakeLists.txt): files are compiled in batches, and which
# files share a batch shifts whenever a file is added. Two file-local definitions of one name
# then collide in some batch, on some day. This check finds every such pair now.
# Usage: unity_names.py ROOT; prints each clash and exits 1 when there is one.
import collections
import pathlib
import re
import sys

DECL = re.compile(
    r"^(?:static\s+|inline\s+|constexpr\s+|const\s+|thread_local\s+)*"
    r"(?:(?:struct|class|enum(?:\s+class)?)\s+([A-Za-z_]\w*)\b(?!::)"
    r"|(?:using|[\w:<>,*&\s]+?)\s+([A-Za-z_]\w*)\s*(?:=|\(|\[|\{|;))")
STATIC = re.compile(r"^static\s")


def file_local_names(path):
    names = set()
    depth = 0  # nesting of anonymous namespaces
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if re.match(r"^namespace\s*\{", line):
            depth += 1
            continue
        if depth and re.match(r"^\}\s*//\s*namespace\s*$", line):
            depth -= 1
            continue
        # Column-0 lines only: declarations at namespace scope, never bodies.
        if (depth or STATIC.match(line)) and line[:1].isalpha():
            if line.startswith("using ") and "=" not in line:  # using-declarations may repeat
                continue
            # An alias may be declared again as the very same alias: only differing ones clash.
            alias = re.match(r"^(?:using|namespace)\s+(\w+)\s*=", line)
            if alias:
                names.add(f"alias {alias.group(1)}\t{' '.join(line.split())}")
                continue
            m = DECL.match(line)
            name = m and (m.group(1) or m.group(2))
            if name and name not in {"operator", "namespace"}:
                # Functions may overload: two with different parameters do not collide.
                params = re.match(r"\(([^)]*)", line[m.end(m.lastindex):].lstrip())
                names.add(name + (f"({' '.join(params.group(1).split())})" if params else ""))
    return names


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    status = 0
    for lib in ("app", "core/src", "tests/core"):
        where = collections.defaultdict(list)
        for path in sorted((root / lib).rglob("*.cpp")):
            for name in file_local_names(path):
                where[name].append(str(path.relative_to(root)))
        aliases = collections.defaultdict(set)
        for name in [n for n in where if n.startswith("alias ")]:
            aliases[name.split("\t")[0]].add(name)
            if len(aliases[name.split("\t")[0]]) == 1:
                where[name.split("\t")[0]] = where.pop(name)
            else:
                where[name.split("\t")[0]] += where.pop(name)
        for name, files in sorted(where.items()):
            if name.startswith("alias ") and len(aliases[name]) == 1:
                continue
            if len(files) > 1:
                print(f"FAIL: '{name}' is file-local in {len(files)} files of one unity build: "
                      + ", ".join(files))
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
