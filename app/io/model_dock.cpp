// AttnScope — the "Model" dock. GPL-3.0-or-later.
#include "io/model_dock.hpp"

#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "attn/models/hf_cache.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/scene/scene_layers.hpp"
#include "model/numbering.hpp"
#include "model/scene.hpp"
#include "tab_docks.hpp"
#include "views/next_tokens_view.hpp"
#include "views/shown_text.hpp"
#include "widgets/column_scroll.hpp"

namespace fileio {

QString modelName(const QString& dir) {
    return QFile::decodeName(
        QByteArray::fromStdString(attn::model::model_name(QFile::encodeName(dir).toStdString())));
}

namespace {

QString parameterText(std::int64_t n) {
    // 124 M, 1.2 B: as model cards give sizes.
    const double v = double(n);
    if (v >= 1e9) return QString::number(v / 1e9, 'f', 1) + QStringLiteral(" B");
    if (v >= 1e6) return QString::number(v / 1e6, 'f', 1) + QStringLiteral(" M");
    if (v >= 1e3) return QString::number(v / 1e3, 'f', 1) + QStringLiteral(" k");
    return QString::number(n);
}

}  // namespace

ModelDock::ModelDock(Scene* scene, QWidget* parent)
    : QDockWidget(tr("Model"), parent),
      scene_(scene),
      about_(new QLabel),
      layer_(new QSpinBox),
      head_(new QSpinBox),
      after_(new QLabel),
      next_(new NextTokensView),
      router_(new QTableWidget) {
    setObjectName(QStringLiteral("modelDock"));
    about_->setWordWrap(true);
    about_->setTextFormat(Qt::PlainText);
    // Typed numbers apply when done: "12" must not show layer 1 on the way.
    layer_->setKeyboardTracking(false);
    head_->setKeyboardTracking(false);
    layer_->setToolTip(tr("The layer shown in the Heads tab (the Model tab shows every layer)") +
                       QStringLiteral("\n") + numberingNote());
    head_->setToolTip(
        tr("The selected head: the weights bar, the math panel and the lenses follow it") +
        QStringLiteral("\n") + numberingNote());
    after_->setWordWrap(true);
    after_->setTextFormat(Qt::PlainText);
    // A long model name or token wraps at the dock's width instead of widening the column.
    for (QLabel* l : {about_, after_}) {
        l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        l->setMinimumWidth(1);
    }
    auto* body = new QWidget;
    auto* column = new QVBoxLayout(body);
    column->setContentsMargins(6, 4, 6, 4);
    // Layer and head on one row: the prediction below needs its ten rows at 1280 × 800.
    auto* row = new QHBoxLayout;
    auto* layerLabel = new QLabel(tr("&Layer:"));
    layerLabel->setBuddy(layer_);
    auto* headLabel = new QLabel(tr("&Head:"));
    headLabel->setBuddy(head_);
    row->addWidget(layerLabel);
    row->addWidget(layer_, 1);
    row->addSpacing(8);
    row->addWidget(headLabel);
    row->addWidget(head_, 1);
    column->addWidget(about_);
    column->addLayout(row);
    column->addWidget(after_);
    column->addWidget(next_);
    router_->setObjectName(QStringLiteral("routerTable"));
    router_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    router_->verticalHeader()->setVisible(false);
    router_->setToolTip(
        tr("The experts each position's feed-forward block was routed to in "
           "the shown layer, best first, with their weights"));
    router_->hide();
    column->addWidget(router_);
    column->addStretch(1);
    column_ = column;
    // Scrolled, so that the dock's panels never make the window taller than the screen (a model
    // folder open at 1280 × 800 with the prediction and Generate).
    setWidget(new ColumnScroll(body));

    connect(layer_, &QSpinBox::valueChanged, this, [this](int layer) {
        // Displayed from 1, like every label; stored from 0. The run is reused (no new run).
        if (layer - 1 == scene_->spec().layer) return;
        attn::SceneSpec spec = scene_->spec();
        spec.layer = layer - 1;
        scene_->showPart(spec, tr("Show layer %1").arg(layer));
    });
    connect(head_, &QSpinBox::valueChanged, this, [this](int head) {
        Selection s = scene_->selection();
        if (s.head == head - 1) return;
        s.head = head - 1;
        scene_->setSelection(s);
    });
    connect(scene_, &Scene::specChanged, this, &ModelDock::sync);
    connect(scene_, &Scene::selectionChanged, this, &ModelDock::syncHead);
    sync();
}

void ModelDock::sync() {
    const attn::SceneSpec& spec = scene_->spec();
    TabDocks::setAvailable(this, spec.is_model());
    if (!spec.is_model()) {
        next_->setTokens({});
        return;
    }
    if (spec.model != predicted_) {
        // Another model's prediction would pass for this one's until its run is delivered.
        next_->setTokens({});
        after_->setText(tr("Predicting…"));
    }
    const attn::model::ModelInfo& c = spec.model->model->info();
    const QString dir = QString::fromStdString(spec.model->dir);
    // Query and key/value heads apart only when they differ (grouped-query attention).
    const QString heads = c.kv_heads > 0 && c.kv_heads != c.heads
                              ? tr("%1 query / %2 KV heads").arg(c.heads).arg(c.kv_heads)
                              : tr("%1 heads").arg(c.heads);
    about_->setText(tr("%1 · %2\n%3 layers × %4 · d = %5\n%6 parameters · %7%8")
                        .arg(modelName(dir), QString::fromStdString(c.display))
                        .arg(c.layers)
                        .arg(heads)
                        .arg(c.d_model)
                        .arg(parameterText(c.parameters), QString::fromStdString(c.dtype),
                             c.causal ? QString() : tr(" · bidirectional")));
    about_->setToolTip(tr("%1 from %2: %3 positions, %4 tokens of vocabulary")
                           .arg(QString::fromStdString(c.display), dir)
                           .arg(c.max_positions)
                           .arg(c.vocab));
    {
        const QSignalBlocker b1(layer_), b2(head_);
        layer_->setRange(1, c.layers);
        layer_->setValue(int(spec.layer) + 1);
        head_->setRange(1, c.heads);
    }
    syncHead();
}

QString ModelDock::aboutText() const {
    return about_->text();
}

QString ModelDock::predictionTitle() const {
    return after_->text();
}

void ModelDock::syncHead() {
    const QSignalBlocker block(head_);
    head_->setValue(scene_->selection().head + 1);
}

void ModelDock::setFailed(const QString& message) {
    predicted_ = scene_->spec().model;  // what the dock now says is about this model
    next_->setTokens({});
    after_->setText(tr("No prediction: %1").arg(message));
}

void ModelDock::setResult(const SceneResultPtr& result) {
    predicted_ = result && result->run ? scene_->spec().model : nullptr;
    if (!result || !result->run) {
        next_->setTokens({});
        after_->clear();
        return;
    }
    const attn::model::Run& run = *result->run;
    const attn::SceneSpec& spec = scene_->spec();
    const bool encoder = spec.is_model() && !spec.model->model->info().causal;
    const attn::Index at = run.logits_position;
    if (run.logits.size() == 0) {
        // A BertModel folder has no masked-LM head: nothing to predict, and it says why.
        after_->setText(tr("No predictions: this folder has no masked-LM head."));
    } else if (encoder && at + 1 < attn::Index(run.ids.size())) {
        // A bidirectional model's first [MASK], predicted from both sides; numbered from 1.
        after_->setText(tr("Fill-mask at position %1 (top 10):").arg(at + 1));
    } else if (encoder) {
        after_->setText(
            tr("No [MASK] in the text: predictions at the last position (type "
               "[MASK] for a word to fill):"));
    } else {
        const QString last =
            result->q_tokens.empty() ? QString() : QString::fromStdString(result->q_tokens.back());
        after_->setText(tr("Next token after %1 (top 10):").arg(quotedToken(last)));
    }
    next_->setTokens(result->next_tokens);
    showRouting(*result);
}

void ModelDock::showRouting(const attn::SceneResult& result) {
    const attn::Index l = scene_->spec().layer;
    const attn::model::Run* run = result.run.get();
    if (!run || l < 0 || l >= attn::Index(run->layers.size()) ||
        run->layers[std::size_t(l)].router_experts.size() == 0) {
        router_->hide();
        return;
    }
    const attn::model::LayerAttention& layer = run->layers[std::size_t(l)];
    const int rows = int(layer.router_experts.rows()), k = int(layer.router_experts.cols());
    router_->clear();
    router_->setRowCount(rows);
    router_->setColumnCount(k + 1);
    QStringList header{tr("Token")};
    for (int j = 0; j < k; ++j)
        header << tr("Expert %1").arg(j + 1);
    router_->setHorizontalHeaderLabels(header);
    for (int i = 0; i < rows; ++i) {
        const QString token = std::size_t(i) < result.q_tokens.size()
                                  ? QString::fromStdString(result.q_tokens[std::size_t(i)])
                                  : QString::number(i + 1);
        router_->setItem(i, 0, new QTableWidgetItem(token));
        // Experts numbered from 0 as the weight files name them (experts.E.w1).
        for (int j = 0; j < k; ++j)
            router_->setItem(
                i, j + 1,
                new QTableWidgetItem(tr("%1 · %2")
                                         .arg(layer.router_experts(i, j))
                                         .arg(double(layer.router_weights(i, j)), 0, 'f', 2)));
    }
    router_->resizeColumnsToContents();
    router_->show();
}

void ModelDock::addPanel(QWidget* panel) {
    column_->insertWidget(column_->count() - 1, panel);
}

}  // namespace fileio
