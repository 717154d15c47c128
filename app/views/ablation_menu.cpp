// AttnScope — the Heads tab's context menu on a head of a model run. GPL-3.0-or-later.
#include "views/ablation_menu.hpp"

#include <QMenu>

#include "model/interventions_edit.hpp"
#include "model/scene.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"

QMenu* headAblationMenu(QWidget* parent, Scene* scene, int layer, int head) {
    if (!scene->spec().is_model()) return nullptr;
    auto* menu = new QMenu(parent);
    menu->setObjectName(QStringLiteral("ablationMenu"));
    QAction* toggle = menu->addAction(ablationText(scene->spec(), layer, head));
    toggle->setObjectName(QStringLiteral("toggleAblation"));
    QObject::connect(toggle, &QAction::triggered, scene,
                     [scene, layer, head] { toggleAblation(*scene, layer, head); });
    return menu;
}

QMenu* ablationMenu(HeatmapGrid* grid, Scene* scene, const QPoint& pos) {
    const attn::SceneSpec& spec = scene->spec();
    if (!spec.is_model() || !grid->result()) return nullptr;
    // The head under the pointer: the deepest child there, or one of its parents.
    HeadHeatmap* heatmap = nullptr;
    for (QWidget* w = grid->childAt(pos); w && w != grid && !heatmap; w = w->parentWidget())
        heatmap = qobject_cast<HeadHeatmap*>(w);
    if (!heatmap) return nullptr;
    return headAblationMenu(grid, scene, int(grid->result()->layer), heatmap->head());
}

void installAblationMenu(HeatmapGrid* grid, Scene* scene) {
    grid->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(grid, &QWidget::customContextMenuRequested, grid,
                     [grid, scene](const QPoint& pos) {
                         QMenu* menu = ablationMenu(grid, scene, pos);
                         if (!menu) return;
                         menu->setAttribute(Qt::WA_DeleteOnClose);
                         menu->popup(grid->mapToGlobal(pos));
                     });
}
