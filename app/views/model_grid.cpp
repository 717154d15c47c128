// AttnScope — the model view: a layers × heads grid of thumbnails with layer/head selectors.
// GPL-3.0-or-later.
#include "views/model_grid.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "attn/error.hpp"
#include "attn/gpt2/model.hpp"
#include "attn/scene_layers.hpp"
#include "model/compute_service.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "views/model_grid_canvas.hpp"
#include "views/numbering.hpp"

namespace {
// Thumbnails never need more cells than a typical cell has pixels.
constexpr int kThumbSide = 96;
}  // namespace

ModelGrid::ModelGrid(Scene* scene, ComputeService* compute, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      canvas_(new ModelGridCanvas(this)),
      layerBox_(new QSpinBox(this)),
      headBox_(new QSpinBox(this)),
      note_(new QLabel(this)),
      compute_(compute) {
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
    if (compute_) {
        // The scene's result arrives: its layer need not be computed again.
        connect(compute_, &ComputeService::resultReady, this, &ModelGrid::startCompute);
        connect(compute_, &ComputeService::failed, this, &ModelGrid::startCompute);
    }
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
    if ((spec.data || spec.model) && spec.layer != layer) {
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
    Scheduler::instance().cancel(this, QStringLiteral("thumbnails"));
    try {
        canvas_->setThumbnails(
            model_grid::computeThumbnails(scene_->spec(), kThumbSide, nullptr, known));
    } catch (const attn::Error& e) {
        canvas_->setMessage(QString::fromStdString(e.what()));
    }
    dirty_ = false;
    syncSelectors();
}

void ModelGrid::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    startCompute();
}

void ModelGrid::onSpecChanged() {
    dirty_ = true;
    syncSelectors();
    startCompute();
}

void ModelGrid::onSelectionChanged() {
    syncSelectors();
}

void ModelGrid::startCompute() {
    if (!dirty_ || !isVisible()) return;
    // While the window computes the scene, wait for its result (startCompute runs again then).
    if (compute_ && compute_->busy()) return;
    dirty_ = false;
    if (canvas_->thumbnails().images.empty()) canvas_->setMessage(tr("Computing…"));
    const attn::SceneSpec spec = scene_->spec();
    SceneResultPtr known;
    if (compute_ && compute_->result() && compute_->resultSpec() == spec)
        known = compute_->result();
    Scheduler::instance().run(
        this, QStringLiteral("thumbnails"),
        [spec, known](attn::Progress& progress) {
            return model_grid::computeThumbnails(spec, kThumbSide, &progress, known.get());
        },
        [this](model_grid::Thumbnails result) { onComputed(std::move(result)); },
        [this](const QString& error) {
            canvas_->setMessage(error);
            syncSelectors();
        });
}

void ModelGrid::onComputed(model_grid::Thumbnails result) {
    canvas_->setThumbnails(std::move(result));
    syncSelectors();
}

void ModelGrid::syncSelectors() {
    const attn::SceneSpec& spec = scene_->spec();
    const int layers = static_cast<int>(attn::layer_count(spec));
    const int heads = std::max(1, canvas_->thumbnails().heads > 0 ? canvas_->thumbnails().heads
                                  : spec.model ? spec.model->model->config().n_head
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
    canvas_->setCurrent(spec.data || spec.model ? static_cast<int>(spec.layer) : 0,
                        scene_->selection().head);
}
