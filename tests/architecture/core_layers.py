#!/usr/bin/env python3
# AttnScope — core's rooms and their order: a room includes only rooms below it (and itself).
# GPL-3.0-or-later.
"""Usage: core_layers.py ROOT. Prints every upward include of core/src and core/include/attn and
every file outside a room; exits 1 on any. A family's folder (models/<family>/) is its own room
just above models/ and includes no other family."""
import os
import re
import sys

# Lowest first. util: errors, numbers, memory; files: reading and writing files safely; simd:
# the vector kernels; attention: scores, masks, softmax, heads; tokenizers; weights: tensor
# files; blocks: the layers' blocks with their reverse (norms, projections, rotary, attention,
# MLPs, residual wiring); models: the model interface and its families; interventions; scene;
# analysis: census, rollout, view maths; attribution: what each token contributed; lenses;
# playground; generate; io: the file formats.
ROOMS = ["util", "files", "simd", "attention", "tokenizers", "weights", "blocks", "models",
         "interventions", "scene", "analysis", "attribution", "lenses", "playground", "generate",
         "io"]
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def room_of(path):
    """(rank, name) of a core file's room, or None for a file outside every room."""
    for base in ("core/include/attn/", "core/src/"):
        if path.startswith(base):
            parts = path[len(base):].split("/")
            if len(parts) < 2 or parts[0] not in ROOMS:
                return None
            rank = ROOMS.index(parts[0])
            if parts[0] == "models" and len(parts) > 2:
                return (rank + 0.5, "models/" + parts[1])
            return (rank, parts[0])
    return None


def main(root):
    os.chdir(root)
    bad = []
    for base in ("core/src", "core/include/attn"):
        for folder, _, names in os.walk(base):
            for name in names:
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(folder, name)
                mine = room_of(path)
                if mine is None:
                    bad.append(f"{path}: outside every room ({', '.join(ROOMS)})")
                    continue
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for target in INCLUDE.findall(text):
                    if target.startswith("attn/"):
                        full = "core/include/" + target
                    else:
                        full = os.path.normpath(os.path.join(folder, target))
                    theirs = room_of(full)
                    if theirs is None or theirs[1] == mine[1]:
                        continue
                    family_to_family = mine[1].startswith("models/") and theirs[1].startswith("models/")
                    # The registry (models/families.cpp) is the one models/ file that sees families.
                    registry = path == "core/src/models/families.cpp" and theirs[1].startswith("models/")
                    if (theirs[0] > mine[0] and not registry) or family_to_family:
                        bad.append(f"{path}: {mine[1]} includes {target} ({theirs[1]}, above it)")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
