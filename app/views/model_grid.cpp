// AttnScope — the model view: a layers × heads grid of thumbnails with layer/head selectors.
// GPL-3.0-or-later.
#include "views/model_grid.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "attn/models/model.hpp"
#include "attn/scene/scene_layers.hpp"
#include "attn/util/error.hpp"
#include "model/layer_cache.hpp"
#include "model/numbering.hpp"
#include "model/scene.hpp"
#include "model/while_visible.hpp"
#include "views/ablation_menu.hpp"
#include "views/model_grid_canvas.hpp"

ModelGrid::ModelGrid(Scene* scene, ComputeService* compute, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      canvas_(new ModelGridCanvas(this)),
      layerBox_(new QSpinBox(this)),
      headBox_(new QSpinBox(this)),
      note_(new QLabel(this)),
      cache_(LayerCache::of(scene)),
      refresh_(new WhileVisible(this, [this] { startCompute(); })) {
    if (compute) cache_->setComputeService(compute);
    setWindowTitle(tr("Model"));
    layerBox_->setKeyboardTracking(false);  // typed numbers apply when done
    headBox_->setKeyboardTracking(false);
    auto* bar = new QHBoxLayout;
    auto* layerLabel = new QLabel(tr("&Layer"), this);
    layerLabel->setBuddy(layerBox_);
    auto* headLabel = new QLabel(tr("&Head"), this);
    headLabel->setBuddy(headBox_);
    layerBox_->setToolTip(tr("The layer the heatmap grid shows") + QStringLiteral("\n") +
                          numberingNote());
    headBox_->setToolTip(tr("The focused head (selection) in every view") + QStringLiteral("\n") +
                         numberingNote());
    note_->setToolTip(
        tr("Click a thumbnail to mark that layer and head (every view follows); "
           "double-click to open it in the heatmap grid"));
    note_->setWordWrap(true);
    note_->setObjectName(QStringLiteral("modelNote"));
    bar->addWidget(layerLabel);
    bar->addWidget(layerBox_);
    bar->addSpacing(12);
    bar->addWidget(headLabel);
    bar->addWidget(headBox_);
    bar->addSpacing(12);
    bar->addWidget(note_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(bar);
    layout->addWidget(canvas_, 1);

    connect(scene_, &Scene::specChanged, this, &ModelGrid::onSpecChanged);
    connect(scene_, &Scene::selectionChanged, this, &ModelGrid::onSelectionChanged);
    // A click marks the head (the frame, the Head box, every view's selection); a double-click
    // opens it in the heatmap grid; the hovered head's numbers show in the note.
    connect(canvas_, &ModelGridCanvas::cellClicked, this, &ModelGrid::markHead);
    connect(canvas_, &ModelGridCanvas::cellDoubleClicked, this, &ModelGrid::openHead);
    connect(canvas_, &ModelGridCanvas::cellHovered, this, &ModelGrid::showHovered);
    // A right click on a head of a model run: Ablate / Restore (one undo step).
    connect(canvas_, &ModelGridCanvas::cellMenuRequested, this,
            [this](int layer, int head, const QPoint& global) {
                if (QMenu* menu = headAblationMenu(this, scene_, layer, head)) {
                    menu->setAttribute(Qt::WA_DeleteOnClose);
                    menu->popup(global);
                }
            });
    // Every layer comes from the scene's layer cache, computed once for every reader.
    connect(cache_, &LayerCache::layersReady, this, &ModelGrid::onComputed);
    connect(cache_, &LayerCache::layersFailed, this, [this](const QString& error) {
        canvas_->setMessage(error);
        syncSelectors();
    });
    // The selectors count from 1, as every label does.
    connect(layerBox_, &QSpinBox::valueChanged, this,
            [this](int layer) { openHead(layer - 1, scene_->selection().head); });
    connect(headBox_, &QSpinBox::valueChanged, this, [this](int head) {
        Selection s = scene_->selection();
        s.head = head - 1;
        scene_->setSelection(s);
    });
    syncSelectors();
}

const model_grid::Thumbnails& ModelGrid::thumbnails() const {
    return canvas_->thumbnails();
}

void ModelGrid::openHead(int layer, int head) {
    markHead(layer, head);
    Q_EMIT headActivated(layer, head);
}

void ModelGrid::showHovered(int layer, int head) {
    const model_grid::Thumbnails& t = canvas_->thumbnails();
    const auto i = static_cast<std::size_t>(layer * t.heads + head);
    if (layer < 0 || head < 0 || i >= t.entropy.size()) return syncSelectors();
    note_->setText(tr("Layer %1, head %2: mean entropy %3 nats, max weight %4 · double-click to "
                      "open it")
                       .arg(layer + 1)
                       .arg(head + 1)
                       .arg(t.entropy[i], 0, 'f', 2)
                       .arg(t.maxWeight[i], 0, 'f', 3));
}

void ModelGrid::markHead(int layer, int head) {
    const attn::SceneSpec& spec = scene_->spec();
    if (!spec.is_synthetic() && spec.layer != layer) {
        attn::SceneSpec next = spec;
        next.layer = layer;
        scene_->showPart(next, tr("Show layer %1").arg(layer + 1));
    }
    Selection s = scene_->selection();
    s.head = head;
    scene_->setSelection(s);
}

void ModelGrid::setColorMap(ColorMapKind kind) {
    canvas_->setColorMap(kind);
}

void ModelGrid::refreshNow(const attn::SceneResult* known) {
    cache_->computeNow(known);
    refresh_->clear();
}

void ModelGrid::onSpecChanged() {
    syncSelectors();
    refresh_->stale();
}

void ModelGrid::onSelectionChanged() {
    syncSelectors();
}

void ModelGrid::startCompute() {
    if (cache_->current()) return onComputed();
    if (canvas_->thumbnails().images.empty()) canvas_->setMessage(tr("Computing…"));
    cache_->want();
}

void ModelGrid::onComputed() {
    if (!cache_->current()) return;  // an older scene's layers
    const model_grid::Thumbnails& t = cache_->layers()->thumbs;
    if (!t.error.isEmpty())
        canvas_->setMessage(t.error);
    else
        canvas_->setThumbnails(t);
    syncSelectors();
}

void ModelGrid::syncSelectors() {
    const attn::SceneSpec& spec = scene_->spec();
    const int layers = static_cast<int>(attn::layer_count(spec));
    const int heads = std::max(1, canvas_->thumbnails().heads > 0 ? canvas_->thumbnails().heads
                                  : spec.is_model()               ? spec.model->model->info().heads
                                                                  : static_cast<int>(spec.heads));
    const QSignalBlocker b1(layerBox_), b2(headBox_);
    layerBox_->setRange(1, layers);
    layerBox_->setValue(static_cast<int>(spec.layer) + 1);
    layerBox_->setEnabled(layers > 1);
    headBox_->setRange(1, heads);
    headBox_->setValue(scene_->selection().head + 1);
    note_->setText(layers > 1
                       ? tr("Click a thumbnail to mark its head, double-click to open it")
                       : tr("One layer (computed scene or single-layer file): double-click a "
                            "head to open it"));
    canvas_->setCurrent(!spec.is_synthetic() ? static_cast<int>(spec.layer) : 0,
                        scene_->selection().head);
}
