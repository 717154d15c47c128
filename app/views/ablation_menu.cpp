// AttnScope — the Heads tab's context menu on a head of a model run. GPL-3.0-or-later.
#include "views/ablation_menu.hpp"

#include <QMenu>

#include "model/interventions_edit.hpp"
#include "model/numbering.hpp"
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

QMenu* ablationMenu(HeatmapGrid* grid, Scene* scene, int head, const QPoint& cell) {
    const attn::SceneSpec& spec = scene->spec();
    if (!spec.is_model() || !grid->result() || head < 0 || head >= grid->headCount())
        return nullptr;
    const int layer = int(grid->result()->layer);
    QMenu* menu = headAblationMenu(grid, scene, layer, head);
    // Over a cell (or a key's label): knock out that query → key edge, or the key's column.
    if (cell.x() < 0) return menu;
    menu->addSeparator();
    std::vector<attn::model::Knockout> edges;
    const attn::model::Site site{attn::model::kSingleStack, layer, head};
    if (cell.y() >= 0) edges.push_back({site, cell.y(), cell.x()});
    edges.push_back({site, -1, cell.x()});
    for (const attn::model::Knockout& edge : edges) {
        const bool on = isKnockedOut(spec, edge);
        QString text = edge.query >= 0
                           ? (on ? QObject::tr("Restore this edge (query %1 → key %2)")
                                 : QObject::tr("Knock out this edge (query %1 → key %2)"))
                                 .arg(shown(edge.query))
                                 .arg(shown(edge.key))
                           : (on ? QObject::tr("Restore key column %1")
                                 : QObject::tr("Knock out key column %1"))
                                 .arg(shown(edge.key));
        QAction* a = menu->addAction(text);
        a->setObjectName(edge.query >= 0 ? QStringLiteral("toggleEdge")
                                         : QStringLiteral("toggleColumn"));
        a->setToolTip(knockoutText(spec, edge));
        QObject::connect(a, &QAction::triggered, scene,
                         [scene, edge] { toggleKnockout(*scene, edge); });
    }
    return menu;
}

void installAblationMenu(HeatmapGrid* grid, Scene* scene) {
    QObject::connect(grid, &HeatmapGrid::headMenuRequested, grid,
                     [grid, scene](int head, const QPoint& cell, const QPoint& global) {
                         QMenu* menu = ablationMenu(grid, scene, head, cell);
                         if (!menu) return;
                         menu->setAttribute(Qt::WA_DeleteOnClose);
                         menu->popup(global);
                     });
}
