// AttnScope — attention rollout across layers. GPL-3.0-or-later.
#include "views/rollout_view.hpp"

#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSpinBox>
#include <algorithm>
#include <cmath>

#include "attn/analysis/rollout.hpp"
#include "attn/scene/scene_controls.hpp"
#include "attn/util/error.hpp"
#include "model/layer_cache.hpp"
#include "model/scene.hpp"
#include "model/while_visible.hpp"
#include "views/model_grid_data.hpp"
#include "views/screen_only.hpp"

namespace {
constexpr int kRolloutMargin = 12;
constexpr int kRolloutTitle = 90;  // title, legend, hover readout and the bars' title
constexpr int kLabels = 90;        // token labels left of and below the heatmap

/// The rollout of spec from the layers the layer cache computed.
RolloutData rolloutOf(const attn::SceneSpec& spec, const LayerSet& set) {
    RolloutData d;
    d.error = set.rolloutError;
    if (!d.error.isEmpty()) return d;
    try {
        d.layers = set.rollout;
        d.tokens = spec.query_tokens();
        if (const attn::AttentionComponent* c = attn::shown_component(spec)) d.tokens = c->q_tokens;
        // Each layer was merged by compute_scene (inside rollout): the labels follow.
        if (const attn::WordGroups g = attn::word_groups(d.tokens);
            spec.merge_words && g.merges()) {
            d.tokens = g.words;
            d.merged = true;
        }
    } catch (const std::exception& e) {
        d.layers.clear();
        d.error = QString::fromUtf8(e.what());
    }
    return d;
}
}  // namespace

RolloutView::RolloutView(Scene* scene, QWidget* parent)
    : AttentionView(QStringLiteral("rolloutView"), parent),
      scene_(scene),
      layerBox_(new QSpinBox(this)),
      readout_(new QLabel(this)),
      cache_(LayerCache::of(scene)),
      refresh_(new WhileVisible(this, [this] {
          if (cache_->current()) return onLayers();
          cache_->want();
      })) {
    // The hover readout and its hint help on screen; exported figures leave them out.
    readout_->setProperty(kScreenOnlyProperty, true);
    readout_->setForegroundRole(QPalette::PlaceholderText);
    showReadout();
    layerBox_->setKeyboardTracking(false);  // a typed "11" must not show layer 1 on the way
    // Layers count from 1 here as in the Heads and Model tabs (layer() stays 0-based).
    layerBox_->setPrefix(tr("after layer "));
    layerBox_->setToolTip(tr("Rollout R after this layer (1 = the first, as in the Model tab)"));
    layerBox_->setRange(1, 1);  // until the first rollout: then it follows the last layer
    connect(layerBox_, &QSpinBox::valueChanged, this, [this] {
        showReadout();
        update();
    });
    connect(scene_, &Scene::specChanged, refresh_, &WhileVisible::stale);
    // The layers are the scene's layer cache's, computed once for every view of all layers.
    connect(cache_, &LayerCache::layersReady, this, &RolloutView::onLayers);
    connect(cache_, &LayerCache::layersFailed, this, [this](const QString& error) {
        RolloutData d;
        d.error = error;
        onComputed(std::move(d));
    });
}

void RolloutView::refreshNow() {
    cache_->computeNow();
    refresh_->clear();
}

void RolloutView::onLayers() {
    if (cache_->current()) onComputed(rolloutOf(scene_->spec(), *cache_->layers()));
}

void RolloutView::onComputed(RolloutData data) {
    const bool wasLast = layerBox_->value() == layerBox_->maximum();
    data_ = std::move(data);
    const QSignalBlocker block(layerBox_);
    layerBox_->setMaximum(std::max(1, int(data_.layers.size())));
    if (wasLast) layerBox_->setValue(layerBox_->maximum());  // follow the last layer
    layerBox_->setEnabled(data_.layers.size() > 1);
    showReadout();
    update();
}

int RolloutView::layer() const {
    return layerBox_->value() - 1;
}

void RolloutView::setLayer(int layer) {
    layerBox_->setValue(layer + 1);
}

void RolloutView::rebuild() {
    AttentionView::rebuild();
    showReadout();
    update();
}

std::vector<std::string> RolloutView::shownTokens() const {
    return data_.tokens;
}

const attn::MatrixD& RolloutView::shownMatrix() const {
    static const attn::MatrixD kNone;
    if (data_.layers.empty()) return kNone;
    return data_.layers[std::size_t(std::clamp(layer(), 0, int(data_.layers.size()) - 1))];
}

Eigen::RowVectorXd RolloutView::bars() const {
    const attn::MatrixD& m = shownMatrix();
    std::vector<attn::Index> rows;
    for (int q : selection_.selectedQueries()) {
        if (q < 0 || q >= int(data_.tokens.size())) continue;
        const attn::Index r = q;
        if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
    }
    if (rows.empty() || m.size() == 0) return {};
    Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(m.cols());
    for (attn::Index r : rows)
        sum += m.row(r);
    return selection_.sum ? sum : Eigen::RowVectorXd(sum / double(rows.size()));
}

QRect RolloutView::heatRect() const {
    const int n = std::max<int>(1, int(shownTokens().size()));
    const int side =
        std::max(40, std::min(width() / 2 - kLabels - kRolloutMargin,
                              height() - kRolloutTitle - kLabels - 2 * kRolloutMargin));
    const int cell = std::max(1, side / n);
    return {kRolloutMargin + kLabels, kRolloutMargin + kRolloutTitle, cell * n, cell * n};
}

QRect RolloutView::barRect() const {
    const QRect h = heatRect();
    return QRect(h.right() + 40 + kLabels, h.top(),
                 width() - h.right() - 60 - kLabels - kRolloutMargin, h.height());
}

QRect RolloutView::cellRect(int row, int column) const {
    const QRect h = heatRect();
    const int n = std::max<int>(1, int(shownTokens().size()));
    const int cell = h.width() / n;
    return {h.left() + column * cell, h.top() + row * cell, cell, cell};
}

void RolloutView::resizeEvent(QResizeEvent*) {
    layerBox_->adjustSize();
    layerBox_->resize(
        std::max(layerBox_->width(),
                 layerBox_->fontMetrics().horizontalAdvance(tr("after layer 000")) + 40),
        layerBox_->height());
    layerBox_->move(width() - kRolloutMargin - layerBox_->width(), kRolloutMargin);
    readout_->setGeometry(kRolloutMargin, kRolloutMargin + 38, width() - 2 * kRolloutMargin,
                          readout_->fontMetrics().height() + 2);
    showReadout();
}

void RolloutView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette pal = palette();
    p.setPen(pal.color(QPalette::Text));
    if (drawMessage(p, !data_.error.isEmpty() ? tr("No rollout: %1").arg(data_.error)
                       : data_.layers.empty() ? tr("Computing the rollout…")
                                              : QString()))
        return;
    const attn::MatrixD& m = shownMatrix();
    const std::vector<std::string> tokens = shownTokens();
    const int n = int(tokens.size());
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    const int titleWidth = width() - 2 * kRolloutMargin - layerBox_->width() - 10;
    p.drawText(
        QRect(kRolloutMargin, kRolloutMargin, titleWidth, 18), Qt::AlignLeft,
        QFontMetrics(bold).elidedText(tr("Attention rollout after layer %1 of %2: R = Â_l ⋯ Â_1")
                                          .arg(layer() + 1)
                                          .arg(data_.layers.size()),
                                      Qt::ElideRight, titleWidth));
    p.setFont(font());
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(
        // Beside the layer box, which is taller than the title line.
        QRect(kRolloutMargin, kRolloutMargin + 20, titleWidth, 18), Qt::AlignLeft,
        QFontMetrics(font()).elidedText(
            tr("Â = ½·mean_h A + ½·I · rows: outputs · columns: inputs · colour up to %1%2")
                .arg(m.maxCoeff(), 0, 'f', 3)
                .arg(data_.merged ? tr(" · words: inputs summed, outputs averaged") : QString()),
            Qt::ElideRight, titleWidth));
    const double top = std::max(1e-12, m.maxCoeff());
    const QList<QRgb> colors = model_grid::thumbnailColors(ColorMapKind::Viridis);  // 0…254
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            p.fillRect(cellRect(i, j),
                       QColor(colors[int(std::lround(std::clamp(m(i, j) / top, 0.0, 1.0) * 254))]));
    const QFontMetrics fm(font());
    p.setPen(pal.color(QPalette::Text));
    const QRect h = heatRect();
    const int cell = h.width() / std::max(1, n);
    const int every = std::max(1, (fm.height() + 2) / std::max(1, cell));
    for (int i = 0; i < n; i += every) {
        const QString t = fm.elidedText(QString::fromStdString(tokens[std::size_t(i)]),
                                        Qt::ElideRight, kLabels - 6);
        p.drawText(QRect(kRolloutMargin, cellRect(i, 0).top(), kLabels - 6, cell),
                   Qt::AlignRight | Qt::AlignVCenter, t);
    }
    for (int j = 0; j < n; j += every) {  // input tokens below the columns, read downwards
        p.save();
        p.translate(cellRect(0, j).center().x() + fm.ascent() / 2, h.bottom() + 4);
        p.rotate(90);
        p.drawText(QRect(0, 0, kLabels - 6, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(QString::fromStdString(tokens[std::size_t(j)]), Qt::ElideRight,
                                 kLabels - 6));
        p.restore();
    }
    const std::vector<int> sel = selection_.selectedQueries();
    p.setPen(QPen(Qt::red, 2));
    for (int q : sel) {
        if (q < 0 || q >= int(data_.tokens.size())) continue;
        p.drawRect(QRect(h.left(), cellRect(q, 0).top(), h.width(), cell));
    }
    p.setPen(QPen(QColor(255, 140, 0), 2));
    for (int k : selectedInputs())
        p.drawRect(QRect(cellRect(0, k).left(), h.top(), cell, h.height()));
    // Bars: how much each input token feeds the selected output token(s).
    const Eigen::RowVectorXd b = bars();
    const QRect br = barRect();
    p.setPen(pal.color(QPalette::Text));
    p.setFont(bold);
    p.drawText(QRect(br.left() - kLabels, br.top() - 22, br.width() + kLabels, 18), Qt::AlignLeft,
               b.size() == 0 ? tr("Select an output token (click a row)")
               : sel.size() > 1
                   ? tr("What feeds the %1 of %2 tokens")
                         .arg(selection_.sum ? tr("sum") : tr("mean"))
                         .arg(sel.size())
                   : tr("What feeds “%1”")
                         .arg(QString::fromStdString(data_.tokens[std::size_t(
                             std::clamp(sel.front(), 0, int(data_.tokens.size()) - 1))])));
    p.setFont(font());
    if (b.size() == 0) return;
    const double btop = std::max(1e-12, b.maxCoeff());
    const int bh = std::max(4, std::min(22, br.height() / std::max(1, n)));
    for (int j = 0; j < n; ++j) {
        const QRect row(br.left(), br.top() + j * bh, br.width(), bh - 2);
        // The longest bar ends before the value's column ("0.000").
        const int room = row.width() - fm.horizontalAdvance(QStringLiteral("0.0000")) - 6;
        p.fillRect(QRect(row.left(), row.top(), int(std::max(0, room) * b(j) / btop), row.height()),
                   QColor(31, 119, 180));
        p.drawText(QRect(br.left() - kLabels, row.top(), kLabels - 6, row.height()),
                   Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(QString::fromStdString(tokens[std::size_t(j)]), Qt::ElideRight,
                                 kLabels - 6));
        p.drawText(row.adjusted(0, 0, -2, 0), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(b(j), 'f', 3));
    }
    const std::vector<int> inputs = selectedInputs();
    p.setPen(QPen(QColor(255, 140, 0), 2));
    for (int k : inputs)
        p.drawRect(QRect(br.left(), br.top() + k * bh, br.width(), bh - 2));
    if (!inputs.empty()) {
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(br.left() - kLabels, br.top() + n * bh + 4, br.width() + kLabels, 18),
                   Qt::AlignLeft, inputsSummary());
    }
}

std::vector<int> RolloutView::selectedInputs() const {
    std::vector<int> keys;
    for (int k : selection_.selectedKeys())
        if (k >= 0 && k < int(data_.tokens.size())) keys.push_back(k);
    return keys;
}

double RolloutView::selectedInputsFeed() const {
    const Eigen::RowVectorXd b = bars();
    const std::vector<int> keys = selectedInputs();
    if (b.size() == 0 || keys.empty()) return 0;
    double total = 0;
    for (int k : keys)
        total += b(k);
    return selection_.sum ? total : total / double(keys.size());
}

QString RolloutView::inputsSummary() const {
    const std::vector<int> keys = selectedInputs();
    if (keys.empty() || bars().size() == 0) return {};
    if (keys.size() == 1)
        return tr("input “%1” feeds %2")
            .arg(QString::fromStdString(data_.tokens[std::size_t(keys[0])]))
            .arg(selectedInputsFeed(), 0, 'f', 4);
    return tr("%1 selected inputs feed %2 (%3)")
        .arg(keys.size())
        .arg(selectedInputsFeed(), 0, 'f', 4)
        .arg(selection_.sum ? tr("sum") : tr("mean"));
}

QPoint RolloutView::cellAt(const QPoint& pos) const {
    const QRect h = heatRect();
    const int n = int(shownTokens().size());
    if (n == 0 || !h.contains(pos)) return {-1, -1};
    const int cell = std::max(1, h.width() / n);
    return {std::min(n - 1, (pos.x() - h.left()) / cell),
            std::min(n - 1, (pos.y() - h.top()) / cell)};
}

int RolloutView::barAt(const QPoint& pos) const {
    const QRect br = barRect();
    const int n = int(shownTokens().size());
    const int bh = std::max(4, std::min(22, br.height() / std::max(1, n)));
    if (bars().size() == 0 || pos.x() < br.left() - kLabels || pos.x() > br.right() ||
        pos.y() < br.top() || pos.y() >= br.top() + n * bh)
        return -1;
    return (pos.y() - br.top()) / bh;
}

QString RolloutView::hoverText() const {
    const attn::MatrixD& m = shownMatrix();
    const auto token = [this](int i) {
        return QString::fromStdString(data_.tokens[std::size_t(i)]);
    };
    if (hovered_.x() >= 0 && hovered_.y() >= 0 && hovered_.y() < m.rows() &&
        hovered_.x() < m.cols())
        return tr("R[output “%1” (%2), input “%3” (%4)] = %5")
            .arg(token(hovered_.y()))
            .arg(hovered_.y())
            .arg(token(hovered_.x()))
            .arg(hovered_.x())
            .arg(m(hovered_.y(), hovered_.x()), 0, 'f', 6);
    return {};
}

void RolloutView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell == hovered_) return;
    hovered_ = cell;
    setToolTip(hoverText());
    showReadout();
}

void RolloutView::showReadout() {
    const QString text = hoverText().isEmpty()
                             ? tr("hover a cell for its value; click a row for what feeds it, a "
                                  "bar for an input (ctrl/shift: several)")
                             : hoverText();
    readout_->setText(readout_->fontMetrics().elidedText(text, Qt::ElideRight, readout_->width()));
}

void RolloutView::leaveEvent(QEvent*) {
    hovered_ = {-1, -1};
    showReadout();
}

void RolloutView::mousePressEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    // A bar (or its label) is an input token: it becomes the selected key.
    if (const int bar = barAt(pos); bar >= 0)
        return Q_EMIT selectionRequested(clickedKey(bar, event->modifiers()));
    const QPoint cell = cellAt(pos);
    if (cell.y() < 0) return;
    // A cell: its row is the output token whose feeds the bars show (ctrl/shift: several);
    // a plain click also makes its column the selected input.
    Selection s = clickedQuery(cell.y(), event->modifiers());
    if (!(event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier))) {
        s.keys.clear();
        s.key = cell.x();
    }
    Q_EMIT selectionRequested(s);
}
