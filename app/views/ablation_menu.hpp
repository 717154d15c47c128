// AttnScope — the Heads tab's context menu on a head of a model run: Ablate / Restore.
// GPL-3.0-or-later.
#pragma once

#include <QPoint>

class HeatmapGrid;
class QMenu;
class QWidget;
class Scene;

/// Gives GRID a context menu that ablates or restores the head under the pointer (the selected
/// one for the Menu key) in SCENE's model run, and knocks out the edge or key column under it
/// (one undo step each); nothing is offered on a scene without a model.
void installAblationMenu(HeatmapGrid* grid, Scene* scene);

/// A menu (owned by PARENT) whose one entry ablates head LAYER.HEAD of SCENE's model run, or
/// restores it (one undo step); null when the scene runs no model.
QMenu* headAblationMenu(QWidget* parent, Scene* scene, int layer, int head);

/// The menu for head HEAD's cell CELL (key, query; −1: a label or none) of GRID, null when the
/// scene runs no model or there is no such head. The caller owns it (tests trigger its action).
QMenu* ablationMenu(HeatmapGrid* grid, Scene* scene, int head, const QPoint& cell);
