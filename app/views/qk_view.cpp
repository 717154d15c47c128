// AttnScope — the joint query–key space. GPL-3.0-or-later.
#include "views/qk_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <algorithm>
#include <numeric>

namespace {
constexpr int kQkMargin = 12;
constexpr int kTitle = 40;
constexpr double kPick = 9;  // pixels within which a press picks a query
const QColor kQuery(31, 119, 180), kKey(255, 127, 14);
}  // namespace

QkView::QkView(QWidget* parent) : AttentionView(QStringLiteral("qkView"), parent) {
    reset_ = new QPushButton(tr("Reset"), this);
    reset_->setToolTip(tr("Put the dragged query back where the model has it"));
    reset_->setEnabled(false);
    connect(reset_, &QPushButton::clicked, this, &QkView::reset);
}

int QkView::head() const {
    return result_ ? std::clamp(selection_.head, 0, int(result_->heads.size()) - 1) : 0;
}

QString QkView::message() const {
    return vectorsMissing(tr("The query–key view"));
}

void QkView::rebuild() {
    AttentionView::rebuild();
    if (!message().isEmpty()) {
        proj_ = {};
        update();
        return;
    }
    proj_ = attn::qk_projection(*result_, head());
    if (head() != projHead_) reset();  // a moved query belongs to the head it was moved in
    projHead_ = head();
    x0_ = std::min(proj_.queries.col(0).minCoeff(), proj_.keys.col(0).minCoeff());
    x1_ = std::max(proj_.queries.col(0).maxCoeff(), proj_.keys.col(0).maxCoeff());
    y0_ = std::min(proj_.queries.col(1).minCoeff(), proj_.keys.col(1).minCoeff());
    y1_ = std::max(proj_.queries.col(1).maxCoeff(), proj_.keys.col(1).maxCoeff());
    const double px = std::max(1e-6, 0.1 * (x1_ - x0_)), py = std::max(1e-6, 0.1 * (y1_ - y0_));
    x0_ -= px, x1_ += px, y0_ -= py, y1_ += py;
    if (moved_ >= int(proj_.queries.rows())) reset();
    update();
}

QRectF QkView::plotRect() const {
    return QRectF(kQkMargin + 30, kQkMargin + kTitle, width() - 2 * kQkMargin - 30 - 200,
                  height() - 2 * kQkMargin - kTitle - 24);
}

QPointF QkView::toPixels(double x, double y) const {
    const QRectF r = plotRect();
    return {r.left() + (x - x0_) / (x1_ - x0_) * r.width(),
            r.bottom() - (y - y0_) / (y1_ - y0_) * r.height()};
}

QPointF QkView::toPlane(const QPointF& px) const {
    const QRectF r = plotRect();
    return {x0_ + (px.x() - r.left()) / r.width() * (x1_ - x0_),
            y0_ + (r.bottom() - px.y()) / r.height() * (y1_ - y0_)};
}

QPointF QkView::queryPoint(int i) const {
    double x = proj_.queries(i, 0), y = proj_.queries(i, 1);
    if (i == moved_) x += offset_.x(), y += offset_.y();
    return toPixels(x, y);
}

QPointF QkView::keyPoint(int j) const {
    return toPixels(proj_.keys(j, 0), proj_.keys(j, 1));
}

std::vector<int> QkView::selectedQueries() const {
    std::vector<int> qs;
    if (!message().isEmpty()) return qs;
    for (int i : selection_.selectedQueries())
        if (i >= 0 && i < int(proj_.queries.rows())) qs.push_back(i);
    return qs;
}

Eigen::RowVectorXf QkView::liveWeights() const {
    const std::vector<int> qs = selectedQueries();
    if (qs.empty()) return {};
    Eigen::RowVectorXf sum = queryWeights(qs.front());
    for (std::size_t n = 1; n < qs.size(); ++n)
        sum += queryWeights(qs[n]);
    // Several queries: their sum or mean, as the other views show them.
    return selection_.sum ? sum : Eigen::RowVectorXf(sum / float(qs.size()));
}

Eigen::RowVectorXf QkView::queryWeights(int i) const {
    if (i == moved_)
        return attn::weights_for_query(
            *result_, head(), i,
            attn::moved_query(*result_, proj_, head(), i, offset_.x(), offset_.y()));
    return result_->weights_row(head(), i);  // stored, or recomputed for a long scene
}

void QkView::reset() {
    moved_ = -1;
    offset_ = {};
    dragging_ = false;
    reset_->setEnabled(false);
    update();
}

void QkView::resizeEvent(QResizeEvent*) {
    reset_->adjustSize();
    reset_->move(width() - kQkMargin - reset_->width(), kQkMargin);
}

void QkView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.setPen(pal.color(QPalette::Text));
    if (drawMessage(p, message())) return;
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    const double total = std::max(1e-12, proj_.total_variance);
    p.drawText(QRectF(kQkMargin, kQkMargin, width() - 2 * kQkMargin - 90, 18), Qt::AlignLeft,
               tr("Query–key space, head %1: joint PCA (PC1 %2%, PC2 %3% of the variance)")
                   .arg(head() + 1)
                   .arg(100 * proj_.variance(0) / total, 0, 'f', 0)
                   .arg(100 * proj_.variance(1) / total, 0, 'f', 0));
    p.setFont(font());
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(kQkMargin, kQkMargin + 18, width() - 2 * kQkMargin, 18), Qt::AlignLeft,
               tr("● queries   ■ keys   drag a query: its weights follow live"));
    const QRectF r = plotRect();
    p.setPen(pal.color(QPalette::Mid));
    p.drawRect(r);
    p.drawText(QRectF(r.left(), r.bottom() + 4, r.width(), 16), Qt::AlignCenter, tr("PC1"));
    p.save();
    p.translate(r.left() - 8, r.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-30, -14, 60, 14), Qt::AlignCenter, tr("PC2"));
    p.restore();
    // Lines from the selected query to its top keys, opacity = weight.
    const Eigen::RowVectorXf w = liveWeights();
    std::vector<int> order(std::size_t(w.size()));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return w(a) > w(b); });
    if (order.size() > std::size_t(kTopKeys)) order.resize(kTopKeys);
    // Each selected query's lines to its own top keys (several: one fan each).
    for (int i : selectedQueries()) {
        const Eigen::RowVectorXf wi = queryWeights(i);
        std::vector<int> top(std::size_t(wi.size()));
        std::iota(top.begin(), top.end(), 0);
        std::sort(top.begin(), top.end(), [&](int a, int b) { return wi(a) > wi(b); });
        if (top.size() > std::size_t(kTopKeys)) top.resize(kTopKeys);
        for (int j : top) {
            QColor c(60, 60, 60);
            c.setAlphaF(std::clamp(double(wi(j)), 0.08, 1.0));
            p.setPen(QPen(c, 1 + 3 * wi(j)));
            p.drawLine(queryPoint(i), keyPoint(j));
        }
    }
    const auto label = [&](const QPointF& at, const std::string& t) {
        p.drawText(at + QPointF(6, -4), QString::fromStdString(t));
    };
    for (int j = 0; j < int(proj_.keys.rows()); ++j) {
        const QPointF c = keyPoint(j);
        p.setPen(kKey.darker(130));
        p.setBrush(kKey);
        p.drawRect(QRectF(c.x() - 4, c.y() - 4, 8, 8));
        p.setPen(pal.color(QPalette::Text));
        label(c, result_->k_tokens[std::size_t(j)]);
    }
    const std::vector<int> picked = selectedQueries();
    for (int i = 0; i < int(proj_.queries.rows()); ++i) {
        const QPointF c = queryPoint(i);
        const bool sel = std::find(picked.begin(), picked.end(), i) != picked.end();
        p.setPen(QPen(sel ? pal.color(QPalette::Text) : kQuery.darker(130), sel ? 2 : 1));
        p.setBrush(kQuery);
        p.drawEllipse(c, sel ? 6 : 4, sel ? 6 : 4);
        p.setPen(kQuery.darker(150));
        label(c, result_->q_tokens[std::size_t(i)]);
    }
    // The selected query's top weights, live.
    p.setPen(pal.color(QPalette::Text));
    double y = r.top();
    const double x = r.right() + 16;
    if (w.size()) {
        p.setFont(bold);
        p.drawText(QPointF(x, y + 12), picked.size() > 1
                                           ? (selection_.sum ? tr("sum of %1 queries' weights")
                                                             : tr("mean of %1 queries' weights"))
                                                 .arg(picked.size())
                                       : selection_.query == moved_ ? tr("moved query's weights")
                                                                    : tr("weights"));
        p.setFont(font());
        for (int j : order) {
            y += 20;
            p.fillRect(QRectF(x, y, 90 * w(j), 14), kKey);
            p.drawText(QRectF(x, y, 180, 14), Qt::AlignRight | Qt::AlignVCenter,
                       QStringLiteral("%1  %2")
                           .arg(QString::fromStdString(result_->k_tokens[std::size_t(j)]))
                           .arg(w(j), 0, 'f', 3));
        }
    }
}

void QkView::mousePressEvent(QMouseEvent* event) {
    if (!message().isEmpty()) return;
    const QPointF pos = event->position();
    int best = -1;
    double bestDist = kPick;
    for (int i = 0; i < int(proj_.queries.rows()); ++i) {
        const double d = QLineF(pos, queryPoint(i)).length();
        if (d < bestDist) best = i, bestDist = d;
    }
    if (best < 0) return;
    // Ctrl/shift-click: the query joins (or leaves) the selected ones; nothing is dragged.
    if (event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier))
        return Q_EMIT selectionRequested(clickedQuery(best, event->modifiers()));
    if (best != moved_) {
        moved_ = best;
        offset_ = {};
    }
    dragging_ = true;
    reset_->setEnabled(true);
    if (selection_.query != best || !selection_.queries.empty())
        Q_EMIT selectionRequested(clickedQuery(best, Qt::NoModifier));
}

void QkView::mouseMoveEvent(QMouseEvent* event) {
    if (!dragging_ || moved_ < 0) return;
    const QPointF plane = toPlane(event->position());
    offset_ = {plane.x() - proj_.queries(moved_, 0), plane.y() - proj_.queries(moved_, 1)};
    update();
}

void QkView::mouseReleaseEvent(QMouseEvent*) {
    dragging_ = false;
}
