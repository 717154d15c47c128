// AttnScope — the one rule on how layers, heads, queries, keys and positions are numbered.
// GPL-3.0-or-later.
#pragma once

#include <QCoreApplication>
#include <QString>

/// The window numbers layers, heads, queries, keys and positions from 1, as people count; the
/// exported numbers, census files, sessions, Python and the command line from 0, as Python
/// indexes. Every label of the window takes its numbers from shown(); every selector's tooltip
/// says both.
inline QString numberingNote() {
    return QCoreApplication::translate(
        "Numbering",
        "Counted from 1 here; exported numbers, census files and the command line's --layer "
        "and --head count from 0 (layer 1 here is layer 0 there).");
}

/// The number a label of the window shows for INDEX (counted from 0 inside the program).
inline long long shown(long long index) {
    return index + 1;
}

/// "layer 3, head 2": head HEAD of layer LAYER (from 0) as the window names it.
inline QString headName(int layer, int head) {
    return QCoreApplication::translate("Numbering", "layer %1, head %2")
        .arg(shown(layer))
        .arg(shown(head));
}

/// "4→3" (query 4, key 3) or "*→3" (key 3 for every query) as the window names a knocked-out
/// edge of QUERY (−1: every query) and KEY, both from 0.
inline QString edgeName(int query, int key) {
    return (query < 0 ? QStringLiteral("*") : QString::number(shown(query))) + QStringLiteral("→") +
           QString::number(shown(key));
}
