// AttnScope — builds the view a `render --view NAME` asks for, offscreen. GPL-3.0-or-later.
#include "cli/view_factory.hpp"

#include "cli/cli_tr.hpp"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QWidget>

#include "cli/exit_codes.hpp"
#include "export/widget_painter.hpp"
#include "io/playground_json.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "model/seq2seq_run.hpp"
#include "playground/playground_widget.hpp"
#include "views/attribution_view.hpp"
#include "views/census_table.hpp"
#include "views/heatmap_grid.hpp"
#include "views/lines_view.hpp"
#include "views/logit_lens_view.hpp"
#include "views/model_grid.hpp"
#include "views/neuron_view.hpp"
#include "views/patching_view.hpp"
#include "views/qk_view.hpp"
#include "views/rollout_view.hpp"
#include "views/scroll_frame.hpp"
#include "views/tokens_view.hpp"

namespace cli {
namespace {

/// Gives a fresh top-level view its export size and lays it out, so views that size their
/// contents from their own geometry (the heatmap grid's columns) see the final size. A figure
/// never scrolls: fitting from the start, the export does not lay the view out again. Nor is it
/// ever on a screen: with updates off, showing it (to lay it out) paints no backing store; the
/// export paints the view itself (same bytes for every view, 0.85× the CPU of `render`).
void place(QWidget* view, const Request& request) {
    ScrollFrame::setFittingIn(view, true);
    view->setUpdatesEnabled(false);
    view->resize(request.size);
    exporting::settleLayout(view);
}

std::unique_ptr<QWidget> headsView(const Request& request, Scene* scene, SceneResultPtr result) {
    auto grid = std::make_unique<HeatmapGrid>();
    grid->setWindowTitle(tr("Heads"));
    ScrollFrame::setFittingIn(grid.get(), true);
    // Fill the grid while hidden and lay it out once: laid out first, every head would be
    // aggregated and replotted again on each resize of the layout passes (twice the time).
    grid->resize(request.size);
    HeatmapStyle style;
    if (!request.colorMap.isEmpty()) style.colorMap = colorMapFromId(request.colorMap);
    grid->setStyle(style);
    grid->setResult(std::move(result));
    grid->setSelection(scene->selection());
    if (request.head) grid->setFocusedHead(*request.head);
    place(grid.get(), request);
    return grid;
}

std::unique_ptr<QWidget> modelView(const Request& request, Scene* scene,
                                   const SceneResultPtr& result) {
    auto view = std::make_unique<ModelGrid>(scene);
    if (!request.colorMap.isEmpty()) view->setColorMap(colorMapFromId(request.colorMap));
    place(view.get(), request);
    view->refreshNow(result.get());  // the layer the command line computed is not redone
    exporting::settleLayout(view.get());
    return view;
}

std::unique_ptr<QWidget> playgroundView(const Request& request, Scene* scene,
                                        const QString& viewsJson) {
    auto view = std::make_unique<PlaygroundWidget>(scene->undoStack());
    // A session carries the playground's points; otherwise the playground's own default.
    const QJsonObject views = QJsonDocument::fromJson(viewsJson.toUtf8()).object();
    attn::PlaygroundState state = view->state();
    if (views.value(QStringLiteral("playground")).isObject() &&
        fileio::playgroundFromJson(views.value(QStringLiteral("playground")).toObject(), &state))
        view->setState(state);
    place(view.get(), request);
    view->fitViews();
    view->replotNow();
    return view;
}

std::unique_ptr<QWidget> lensView(const Request& request, Scene* scene, QString* error, int* code) {
    const QString name = request.view.mid(5);  // after "lens:"
    std::unique_ptr<QWidget> view(createLens(name, scene));
    if (!view) {
        *error = tr("--view: no lens '%1' (available: %2)")
                     .arg(name, lensNames().join(QStringLiteral(", ")));
        *code = kExitUsage;
        return nullptr;
    }
    place(view.get(), request);
    if (auto* panel = qobject_cast<LensPanel*>(view.get())) panel->refresh();
    exporting::settleLayout(view.get());
    return view;
}

/// A view of the Views tab (lines, tokens, neuron, rollout, qk) on its own, or the census.
std::unique_ptr<QWidget> attentionView(const Request& request, Scene* scene, SceneResultPtr result,
                                       QString* error, int* code) {
    std::unique_ptr<AttentionView> view;
    if (request.view == QLatin1StringView("lines")) view = std::make_unique<LinesView>();
    if (request.view == QLatin1StringView("tokens")) view = std::make_unique<TokensView>();
    if (request.view == QLatin1StringView("neuron")) view = std::make_unique<NeuronView>();
    if (request.view == QLatin1StringView("qk")) view = std::make_unique<QkView>();
    auto* rollout = request.view == QLatin1StringView("rollout") ? new RolloutView(scene) : nullptr;
    if (rollout) view.reset(rollout);
    view->setSelection(scene->selection());
    view->setResult(std::move(result));
    // A view that can only explain why it cannot draw is no figure: a PNG of the sentence with
    // exit 0 would pass for one in a script.
    QString why;
    if (auto* neuron = dynamic_cast<NeuronView*>(view.get())) why = neuron->message();
    if (auto* qk = dynamic_cast<QkView*>(view.get())) why = qk->message();
    if (!why.isEmpty()) {
        *error = tr("--view %1 cannot be drawn for %2: %3")
                     .arg(request.view, request.file.isEmpty() ? request.model : request.file, why);
        *code = kExitInput;
        return nullptr;
    }
    place(view.get(), request);
    if (rollout) rollout->refreshNow();
    exporting::settleLayout(view.get());
    return view;
}

std::unique_ptr<QWidget> censusView(const Request& request, Scene* scene) {
    auto view = std::make_unique<CensusTable>(scene);
    place(view.get(), request);
    view->refreshNow();
    exporting::settleLayout(view.get());
    return view;
}

/// A view of the Interventions tab (logit-lens, attribution, patching), computed at once.
std::unique_ptr<QWidget> interventionView(const Request& request, Scene* scene, QString* error,
                                          int* code) {
    const QString input = request.file.isEmpty() ? request.model : request.file;
    if (!request.model.isEmpty() &&
        isSeq2SeqFolder(QFile::encodeName(request.model).toStdString())) {
        *error = tr("--view %1 is not drawn for an encoder–decoder (%2): use compute --target … "
                    "--logit-lens, patch --target …, or the window's Interventions tab")
                     .arg(request.view, request.model);
        *code = kExitUsage;
        return nullptr;
    }
    if (!scene->spec().is_model()) {
        *error = tr("--view %1 needs a model's run (--model DIR): %2 is %3")
                     .arg(request.view, input.isEmpty() ? tr("the default scene") : input,
                          scene->spec().is_loaded() ? tr("loaded attention, with no model")
                                                    : tr("a synthetic scene, with no model"));
        *code = kExitInput;
        return nullptr;
    }
    QString why;
    std::unique_ptr<QWidget> view;
    if (request.view == QLatin1StringView("logit-lens")) {
        auto* lens = new LogitLensView(scene);
        view.reset(lens);
        place(lens, request);
        lens->refresh();
        Scheduler::instance().waitForIdle(lens);
        if (lens->table().cells.empty()) why = lens->status()->text();
    } else if (request.view == QLatin1StringView("attribution")) {
        auto* a = new AttributionView(scene);
        view.reset(a);
        place(a, request);
        a->setToken(request.attribute);
        Scheduler::instance().waitForIdle(a);
        if (a->attribution().heads.size() == 0) why = a->status()->text();
    } else {
        auto* p = new PatchingView(scene);
        view.reset(p);
        place(p, request);
        p->corruptEdit()->setText(request.corrupt);
        p->answerEdit()->setText(QString::number(request.answer));
        p->wrongEdit()->setText(QString::number(request.wrong));
        if (p->start()) Scheduler::instance().waitForIdle(p);
        if (p->result().heads.size() == 0) why = p->status()->text();
    }
    if (!why.isEmpty()) {
        *error = tr("--view %1 cannot be drawn for %2: %3").arg(request.view, input, why);
        *code = kExitInput;
        return nullptr;
    }
    exporting::settleLayout(view.get());
    return view;
}

}  // namespace

std::unique_ptr<QWidget> createView(const Request& request, Scene* scene, SceneResultPtr result,
                                    const QString& viewsJson, QString* error, int* code) {
    if (request.view == QLatin1StringView("heads"))
        return headsView(request, scene, std::move(result));
    if (request.view == QLatin1StringView("model")) return modelView(request, scene, result);
    if (request.view == QLatin1StringView("playground"))
        return playgroundView(request, scene, viewsJson);
    if (request.view == QLatin1StringView("census")) return censusView(request, scene);
    for (const char* name : {"lines", "tokens", "neuron", "rollout", "qk"})
        if (request.view == QLatin1StringView(name))
            return attentionView(request, scene, std::move(result), error, code);
    for (const char* name : {"logit-lens", "attribution", "patching"})
        if (request.view == QLatin1StringView(name))
            return interventionView(request, scene, error, code);
    if (request.view.startsWith(QLatin1StringView("lens:")))
        return lensView(request, scene, error, code);
    if (request.view == QLatin1StringView("alignment")) {  // the Alignment lens on its own
        Request lens = request;
        lens.view = QStringLiteral("lens:alignment");
        return lensView(lens, scene, error, code);
    }
    *error = tr("--view: '%1' is not available in this build").arg(request.view);
    *code = kExitUsage;
    return nullptr;
}

}  // namespace cli
