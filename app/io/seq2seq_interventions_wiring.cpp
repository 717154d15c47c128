// AttnScope — interventions on an encoder–decoder's run, wired to the Translation dock.
// GPL-3.0-or-later.
#include "io/seq2seq_interventions_wiring.hpp"

#include <QMenu>
#include <cstring>

#include "attn/scene/seq2seq_scene.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "views/heatmap_grid.hpp"
#include "views/interventions_tab.hpp"
#include "views/seq2seq_interventions_view.hpp"

namespace fileio {

void connectSeq2SeqInterventions(MainWindow* window, ModelController* models,
                                 InterventionsTab* interventions) {
    interventions->seq2seq()->setSubject([models]() -> std::optional<Seq2SeqSubject> {
        if (!models->showsSeq2Seq()) return std::nullopt;
        Seq2SeqDock* dock = models->seq2seqDock();
        Seq2SeqSubject s{dock->sharedFolder(), {}};
        if (!dock->input(false, &s.input)) return std::nullopt;
        return s;
    });
    interventions->sync();
    HeatmapGrid* grid = window->heatmapGrid();
    QObject::connect(
        grid, &HeatmapGrid::headMenuRequested, models,
        [window, models, grid](int head, const QPoint&, const QPoint& global) {
            if (!models->showsSeq2Seq() || !grid->result() || head < 0 || head >= grid->headCount())
                return;
            Seq2SeqDock* dock = models->seq2seqDock();
            const attn::SceneSpec& spec = window->scene()->spec();
            const attn::model::Site site{attn::shown_component(*spec.data, spec.component)
                                             .value_or(attn::model::Component::Cross),
                                         int(grid->result()->layer), head};
            const QString name = seq2seqHeadsText({site});
            auto* menu = new QMenu(grid);
            menu->setObjectName(QStringLiteral("seq2seqAblationMenu"));
            QAction* toggle =
                menu->addAction(dock->isAblated(site) ? QObject::tr("Restore %1").arg(name)
                                                      : QObject::tr("Ablate %1").arg(name));
            toggle->setObjectName(QStringLiteral("toggleSeq2SeqAblation"));
            QObject::connect(toggle, &QAction::triggered, dock,
                             [dock, site] { dock->toggleAblation(site); });
            menu->setAttribute(Qt::WA_DeleteOnClose);
            menu->popup(global);
        });
}

}  // namespace fileio
