// AttnScope — BertViz's neuron view. GPL-3.0-or-later.
#include "views/neuron_view.hpp"

#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace {
constexpr int kNeuronMargin = 10;
constexpr int kNeuronTop = 82;  // title, q strip and headers
constexpr int kNeuronRow = 18;
constexpr int kLabel = 110;
constexpr int kNumbers = 150;

/// Blue (−1) – white (0) – red (+1).
QColor diverging(float v) {
    const double t = std::clamp(double(v), -1.0, 1.0);
    const QColor hi = t >= 0 ? QColor(178, 24, 43) : QColor(33, 102, 172);
    const double a = std::abs(t);
    return QColor::fromRgbF(float(1 + (hi.redF() - 1) * a), float(1 + (hi.greenF() - 1) * a),
                            float(1 + (hi.blueF() - 1) * a));
}

void drawStrip(QPainter& p, const QRect& r, const Eigen::RowVectorXf& v, float scale) {
    const int n = static_cast<int>(v.size());
    for (int d = 0; d < n; ++d) {
        const int x0 = r.left() + d * r.width() / n, x1 = r.left() + (d + 1) * r.width() / n;
        p.fillRect(QRect(x0, r.top(), std::max(1, x1 - x0), r.height()), diverging(v(d) / scale));
    }
    p.setPen(QColor(160, 160, 160));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(0, 0, -1, -1));
}
}  // namespace

NeuronView::NeuronView(QWidget* parent) : AttentionView(QStringLiteral("neuronView"), parent) {}

int NeuronView::keys() const {
    return static_cast<int>(rows_.size());
}

int NeuronView::query() const {
    return selection_.query;
}

std::vector<attn::Index> NeuronView::queries() const {
    std::vector<attn::Index> qs;
    for (int q : selection_.selectedQueries())
        if (result_ && q >= 0 && q < int(result_->q_tokens.size())) qs.push_back(q);
    return qs;
}

QString NeuronView::message() const {
    if (QString why = vectorsMissing(tr("The neuron view")); !why.isEmpty()) return why;
    // A selection from a larger scene is clamped after the new result arrives.
    if (query() < 0 || query() >= int(result_->q_tokens.size()))
        return tr("Select a query (click a token or a heatmap row)");
    return {};
}

int NeuronView::stripWidth() const {
    return std::max(60, (width() - 2 * kNeuronMargin - kLabel - kNumbers - 20) / 2);
}

QSize NeuronView::sizeHint() const {
    return {760, kNeuronTop + keys() * kNeuronRow + 2 * kNeuronMargin};
}

void NeuronView::rebuild() {
    AttentionView::rebuild();
    rows_.clear();
    if (message().isEmpty()) {
        const int h = std::clamp(selection_.head, 0, int(result_->heads.size()) - 1);
        vecMax_ = prodMax_ = 1e-6f;
        // One row computation for every key (per key, a long head would redo its whole row).
        // Several selected queries: their sum or mean, as every view shows them.
        rows_ = attn::neuron_rows(*result_, h, queries(),
                                  selection_.sum ? attn::Combine::Sum : attn::Combine::Mean);
        for (const attn::NeuronVectors& r : rows_) {
            vecMax_ = std::max({vecMax_, r.q.cwiseAbs().maxCoeff(), r.k.cwiseAbs().maxCoeff()});
            prodMax_ = std::max(prodMax_, r.product.cwiseAbs().maxCoeff());
        }
    }
    setMinimumHeight(kNeuronTop + keys() * kNeuronRow + 2 * kNeuronMargin);
    updateGeometry();
    update();
}

attn::NeuronVectors NeuronView::row(int key) const {
    return rows_.at(std::size_t(key));
}

QRect NeuronView::keyStrip(int key) const {
    return {kNeuronMargin + kLabel, kNeuronMargin + kNeuronTop + key * kNeuronRow, stripWidth(),
            kNeuronRow - 3};
}

QRect NeuronView::productStrip(int key) const {
    return keyStrip(key).translated(stripWidth() + 10, 0);
}

void NeuronView::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    const QPalette pal = palette();
    p.setPen(pal.color(QPalette::Text));
    if (drawMessage(p, message())) return;
    const int h = std::clamp(selection_.head, 0, int(result_->heads.size()) - 1);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(
        QRect(kNeuronMargin, kNeuronMargin, width() - 2 * kNeuronMargin, 18), Qt::AlignLeft,
        QFontMetrics(bold).elidedText(
            tr("Neuron view, head %1, %2: d_k = %3; blue < 0 < red")
                .arg(h + 1)
                .arg(queries().size() > 1
                         ? tr("%1 (q, scores and weights)")
                               .arg(selectionSummary(selection_, result_->q_tokens))
                         : tr("query “%1” (%2)")
                               .arg(QString::fromStdString(result_->q_tokens[std::size_t(query())]))
                               .arg(query()))
                .arg(result_->d_k),
            Qt::ElideRight, width() - 2 * kNeuronMargin));
    p.setFont(font());
    const QRect qStrip(kNeuronMargin + kLabel, kNeuronMargin + 26, stripWidth(), kNeuronRow - 3);
    p.drawText(QRect(kNeuronMargin, qStrip.top(), kLabel - 6, qStrip.height()),
               Qt::AlignRight | Qt::AlignVCenter,
               queries().size() > 1 ? (selection_.sum ? tr("Σ q") : tr("mean q"))
                                    : tr("q_%1").arg(query()));
    drawStrip(p, qStrip, rows_.front().q, vecMax_);
    p.setPen(pal.color(QPalette::PlaceholderText));
    const int hy = kNeuronMargin + kNeuronTop - 18;
    p.drawText(QRect(kNeuronMargin, hy, kLabel - 6, 16), Qt::AlignRight, tr("key"));
    p.drawText(QRect(keyStrip(0).left(), hy, stripWidth(), 16), Qt::AlignLeft,
               tr("k_j (±%1)").arg(vecMax_, 0, 'g', 3));
    p.drawText(QRect(productStrip(0).left(), hy, stripWidth(), 16), Qt::AlignLeft,
               tr("q ⊙ k_j (±%1)").arg(prodMax_, 0, 'g', 3));
    const int nx = productStrip(0).right() + 10;
    p.drawText(QRect(nx, hy, kNumbers, 16), Qt::AlignLeft, tr("score   weight"));
    // Only the keys in the exposed rectangle: a 32k-token scene has 32k rows, a screen ~50.
    const int first = std::max(0, (event->rect().top() - kNeuronMargin - kNeuronTop) / kNeuronRow);
    const int last =
        std::min(keys() - 1, (event->rect().bottom() - kNeuronMargin - kNeuronTop) / kNeuronRow);
    const std::vector<attn::Index> selected = queries();
    for (int j = first; j <= last; ++j) {
        const auto& r = rows_[std::size_t(j)];
        const QRect ks = keyStrip(j);
        bool masked = true;  // for every selected query
        for (attn::Index q : selected)
            masked = masked && result_->is_masked(h, q, j);
        const std::vector<int> picked = selection_.selectedKeys();
        p.setPen(std::find(picked.begin(), picked.end(), j) != picked.end()
                     ? pal.color(QPalette::Highlight)
                     : pal.color(QPalette::Text));
        p.drawText(QRect(kNeuronMargin, ks.top(), kLabel - 6, ks.height()),
                   Qt::AlignRight | Qt::AlignVCenter,
                   QString::fromStdString(result_->k_tokens[std::size_t(j)]));
        drawStrip(p, ks, r.k, vecMax_);
        drawStrip(p, productStrip(j), r.product, prodMax_);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(nx, ks.top(), 60, ks.height()), Qt::AlignRight | Qt::AlignVCenter,
                   masked ? tr("masked") : QString::number(r.raw, 'f', 2));
        const QRect bar(nx + 68, ks.top() + 2, int(70 * r.weight), ks.height() - 4);
        p.fillRect(bar, QColor(31, 119, 180));
        p.drawText(QRect(nx + 68, ks.top(), 76, ks.height()), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(r.weight, 'f', 3));
    }
}

void NeuronView::mousePressEvent(QMouseEvent* event) {
    const int j =
        int(std::floor((event->position().y() - kNeuronMargin - kNeuronTop) / kNeuronRow));
    if (j >= 0 && j < keys()) {
        const QRect r = keyStrip(j);
        if (event->position().y() >= r.top() && event->position().y() < r.top() + kNeuronRow) {
            return Q_EMIT selectionRequested(clickedKey(j, event->modifiers()));
        }
    }
}
