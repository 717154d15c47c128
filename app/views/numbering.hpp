// AttnScope — the one sentence on how layers and heads are numbered. GPL-3.0-or-later.
#pragma once

#include <QCoreApplication>
#include <QString>

/// The window numbers layers and heads from 1, as people count; the exported numbers, census
/// files, sessions and the command line's --layer / --head from 0, as Python indexes. Every
/// selector's tooltip says both (issue 26: one numbering, or both stated).
inline QString numberingNote() {
    return QCoreApplication::translate(
        "Numbering",
        "Counted from 1 here; exported numbers, census files and the command line's --layer "
        "and --head count from 0 (layer 1 here is layer 0 there).");
}
