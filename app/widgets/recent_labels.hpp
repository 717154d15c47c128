// AttnScope — File ▸ Open Recent's entries: names that tell two files apart. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>

/// One menu label per path (same order): the file's name, and for names that occur more than
/// once, as many of the trailing folders as tell them apart ("mat.json — runs/a"). Ampersands
/// are doubled so that they show rather than become mnemonics.
QStringList recentFileLabels(const QStringList& paths);
