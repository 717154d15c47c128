// AttnScope — the list of theory lenses and their factory (GUI tabs and `--view lens:NAME`).
// GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>

class QWidget;
class Scene;

/// Registry names of the lenses, in display order: scaling, entropy, rank-collapse, cost,
/// low-rank, efficient, alignment, lookup.
QStringList lensNames();

/// The tab title of a lens ("Scaling", "Rank collapse", …); empty for an unknown name.
QString lensTitle(const QString& name);

/// A new lens panel driven by scene, or null for an unknown name.
QWidget* createLens(const QString& name, Scene* scene, QWidget* parent = nullptr);
