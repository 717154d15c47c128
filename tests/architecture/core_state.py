#!/usr/bin/env python3
# AttnScope — core keeps no process-wide mutable state of its own: no mutex, no static or
# thread_local variable, no namespace-scope variable that is not const, except the ones
# allow-listed with their reason in core_state_allowed.txt. GPL-3.0-or-later.
"""Usage: core_state.py ROOT. Prints every mutex, mutable static, thread_local or namespace-scope
variable of core/src and core/include/attn that core_state_allowed.txt does not name (path and
variable) with a reason, and every allow-list entry that names nothing any more; exits 1 on any.
A cache that outlives a call (e.g. the model runs a window keeps) belongs to the application,
which owns it in one object; core computes and returns."""
import os
import re
import sys

MUTEX = re.compile(r"\bstd::(?:recursive_|shared_|timed_|recursive_timed_)?mutex\s+(\w+)")
# static / thread_local variables (function-local, class or namespace scope) that are not const:
# the name is followed by an initialiser or the semicolon, never by a parameter list.
STATIC = re.compile(
    r"^\s*(?:static\s+|thread_local\s+|inline\s+|mutable\s+)*(?:static|thread_local)\s+"
    r"(?!const\b|constexpr\b|inline\s+const)(?:[^;(=]*?)\b(\w+)\s*(?:\{[^;]*\}|=[^;]*)?;")
# Namespace-scope variables (core's namespaces are not indented): a type and a name at column 0.
GLOBAL = re.compile(
    r"^(?!const\b|constexpr\b|using\b|namespace\b|template\b|struct\b|class\b|enum\b|typedef\b|"
    r"return\b|static_assert\b|extern\b|friend\b|static\b|thread_local\b|inline\s+const)"
    r"(?:inline\s+)?[A-Za-z_][\w:]*(?:<[^;()]*>)?[\s*&]+(\w+)\s*(?:\{[^;]*\}|=(?!=)[^;]*)?;\s*$")


def allowed(root):
    """{(path, name): reason} from the allow-list; a line without a reason is refused."""
    entries, bad = {}, []
    path = os.path.join(root, "tests/architecture/core_state_allowed.txt")
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or len(parts[2]) < 10:
                bad.append(f"tests/architecture/core_state_allowed.txt:{number}: "
                           "an entry needs a path, a variable and the reason it may be there")
                continue
            entries[(parts[0], parts[1])] = parts[2]
    return entries, bad


def main(root):
    os.chdir(root)
    entries, bad = allowed(root)
    seen = set()
    for base in ("core/src", "core/include/attn"):
        for folder, _, names in os.walk(base):
            for name in sorted(names):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    lines = f.read().split("\n")
                for number, line in enumerate(lines, 1):
                    code = line.split("//", 1)[0]
                    for kind, pattern in (("a mutex", MUTEX), ("a mutable static", STATIC),
                                          ("a namespace-scope variable", GLOBAL)):
                        match = pattern.search(code)
                        if not match:
                            continue
                        variable = match.group(1)
                        if (path, variable) in entries:
                            seen.add((path, variable))
                        else:
                            bad.append(f"{path}:{number}: {kind} '{variable}' in core "
                                       "(process-wide state belongs to the application; or "
                                       "allow-list it with its reason)")
                        break
    for (path, variable) in sorted(set(entries) - seen):
        bad.append(f"{path}: allow-listed '{variable}' is not there any more "
                   "(tests/architecture/core_state_allowed.txt)")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
