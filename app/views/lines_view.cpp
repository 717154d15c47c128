// AttnScope — BertViz's head view. GPL-3.0-or-later.
#include "views/lines_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace {
constexpr int kTop = 64;     // title and swatches above the columns
constexpr int kRow = 20;     // one token per row
constexpr int kMargin = 10;  // around everything
constexpr int kSwatch = 18;
}  // namespace

LinesView::LinesView(QWidget* parent) : AttentionView(QStringLiteral("linesView"), parent) {}

int LinesView::headCount() const {
    return static_cast<int>(perHead_.size());
}

int LinesView::rows() const {
    return static_cast<int>(std::max(shown_.qTokens.size(), shown_.kTokens.size()));
}

int LinesView::columnWidth() const {
    QFont bold = font();  // a selected query is drawn bold
    bold.setBold(true);
    const QFontMetrics fm(bold);
    int w = 60;
    for (const auto* tokens : {&shown_.qTokens, &shown_.kTokens})
        for (const std::string& t : *tokens)
            w = std::max(w, fm.horizontalAdvance(QString::fromStdString(t)) + 12);
    return std::min(w, 220);
}

QSize LinesView::sizeHint() const {
    return {2 * columnWidth() + 260, kTop + rows() * kRow + 2 * kMargin};
}

QSize LinesView::minimumSizeHint() const {
    return {2 * columnWidth() + 120, kTop + rows() * kRow + 2 * kMargin};
}

void LinesView::rebuild() {
    AttentionView::rebuild();
    perHead_.clear();
    if (result_ && !result_->heads.empty()) {
        if (options_.reduce == attn::HeadReduce::One) {
            for (int h = 0; h < static_cast<int>(result_->heads.size()); ++h) {
                ViewOptions one = options_;
                perHead_.push_back(shownAttention(result_, selection_, one, h).weights);
            }
        } else {
            perHead_.push_back(shown_.weights);
        }
    }
    hidden_.resize(perHead_.size(), false);
    hoverQuery_ = std::min(hoverQuery_, static_cast<int>(shown_.qTokens.size()) - 1);
    hoverKey_ = std::min(hoverKey_, static_cast<int>(shown_.kTokens.size()) - 1);
    setMinimumHeight(minimumSizeHint().height());
    updateGeometry();
    update();
}

QString LinesView::title() const {
    // The merge rule is stated under the Views toolbar; the title names what the lines are.
    const QString mode = options_.reduce == attn::HeadReduce::One
                             ? tr("head %1 (a swatch picks another)").arg(selection_.head + 1)
                             : (options_.reduce == attn::HeadReduce::Mean ? tr("mean of the heads")
                                                                          : tr("max of the heads"));
    return tr("Line opacity = weight, %1%2").arg(mode, shown_.merged ? tr(", words") : QString());
}

QRect LinesView::titleRect() const {
    return {kMargin, kMargin, width() - 2 * kMargin, 20};
}

bool LinesView::headVisible(int head) const {
    return head >= 0 && head < headCount() && !hidden_[std::size_t(head)];
}

void LinesView::setHeadVisible(int head, bool visible) {
    if (head < 0 || head >= headCount()) return;
    hidden_[std::size_t(head)] = !visible;
    update();
}

QRect LinesView::swatchRect(int head) const {
    const int x = kMargin + 60 + head * (kSwatch + 6);
    return {x, kMargin + 26, kSwatch, kSwatch};
}

QRect LinesView::queryRect(int row) const {
    return {kMargin, kTop + kMargin + row * kRow, columnWidth(), kRow};
}

QRect LinesView::keyRect(int column) const {
    return {width() - kMargin - columnWidth(), kTop + kMargin + column * kRow, columnWidth(), kRow};
}

QString LinesView::keysSummary() const {
    if (shown_.keys.size() < 2) return {};
    const Eigen::RowVectorXf row = shown_.selectedRow(selection_.sum);
    if (row.size() == 0)
        return tr("%1 keys selected: select a query to see its weight on them")
            .arg(shown_.keys.size());
    float total = 0;
    for (attn::Index k : shown_.keys)
        total += row(k);
    if (!selection_.sum) total /= float(shown_.keys.size());
    return tr("%1 of the %2 selected keys' weights: %3")
        .arg(selection_.sum ? tr("sum") : tr("mean"))
        .arg(shown_.keys.size())
        .arg(double(total), 0, 'f', 3);
}

std::vector<LinesView::Line> LinesView::visibleLines() const {
    std::vector<Line> out;
    const bool reduced = options_.reduce != attn::HeadReduce::One;
    for (int h = 0; h < headCount(); ++h) {
        if (hidden_[std::size_t(h)]) continue;
        // "Selected head": that head's lines alone (its swatch is the one filled).
        if (!reduced && h != selection_.head) continue;
        const attn::Matrix& w = perHead_[std::size_t(h)];
        for (int i = 0; i < w.rows(); ++i) {
            // Hover wins over the selection; with neither, every line is drawn.
            if (hoverQuery_ >= 0 && i != hoverQuery_) continue;
            if (hoverQuery_ < 0 && hoverKey_ < 0 && !shown_.queries.empty() &&
                std::find(shown_.queries.begin(), shown_.queries.end(), i) == shown_.queries.end())
                continue;
            for (int j = 0; j < w.cols(); ++j) {
                if (hoverKey_ >= 0 && j != hoverKey_) continue;
                if (w(i, j) >= kMinWeight) out.push_back({reduced ? -1 : h, i, j, w(i, j)});
            }
        }
    }
    return out;
}

void LinesView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.setPen(pal.color(QPalette::Text));
    if (!result_ || perHead_.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No attention to show"));
        return;
    }
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(titleRect(), Qt::AlignLeft | Qt::AlignVCenter, title());
    p.setFont(font());
    if (const QString keys = keysSummary(); !keys.isEmpty())
        p.drawText(QRect(width() / 2, kMargin + 26, width() / 2 - kMargin, kSwatch),
                   Qt::AlignRight | Qt::AlignVCenter, keys);
    p.drawText(QRect(kMargin, kMargin + 26, 60, kSwatch), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Heads:"));
    for (int h = 0; h < headCount(); ++h) {
        const QRect r = swatchRect(h);
        const QColor c = options_.reduce == attn::HeadReduce::One ? headColor(h) : Qt::darkGray;
        p.setPen(c.darker(130));
        const bool filled = !hidden_[std::size_t(h)] &&
                            (options_.reduce != attn::HeadReduce::One || h == selection_.head);
        p.setBrush(filled ? QBrush(c) : QBrush(Qt::NoBrush));
        p.drawRect(r);
        if (options_.reduce == attn::HeadReduce::One) {  // head numbers as the heatmaps show
            QFont small = font();
            small.setPointSizeF(font().pointSizeF() * 0.75);
            p.setFont(small);
            p.setPen(filled ? QColor(Qt::white) : c.darker(130));
            p.drawText(r, Qt::AlignCenter, QString::number(h + 1));
            p.setFont(font());
        }
    }
    p.setBrush(Qt::NoBrush);
    const int cw = columnWidth();
    const int x0 = kMargin + cw + 4, x1 = width() - kMargin - cw - 4;
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRect(kMargin, kTop - 10, cw, 16), Qt::AlignRight, tr("queries"));
    p.drawText(QRect(width() - kMargin - cw, kTop - 10, cw, 16), Qt::AlignLeft, tr("keys"));
    // Keys shaded by the combined weight of the selected queries (sum or mean).
    const Eigen::RowVectorXf sel = shown_.selectedRow(selection_.sum);
    for (int j = 0; j < static_cast<int>(shown_.kTokens.size()); ++j) {
        const QRect r = keyRect(j).adjusted(0, 1, 0, -1);
        if (sel.size() > j) {
            QColor c(31, 119, 180);
            c.setAlphaF(std::clamp(double(sel(j)), 0.0, 1.0) * 0.6);
            p.fillRect(r, c);
        }
        const bool keySelected =
            std::find(shown_.keys.begin(), shown_.keys.end(), j) != shown_.keys.end();
        if (j == hoverKey_ || keySelected) p.fillRect(r, QColor(255, 200, 0, 90));
        p.setPen(pal.color(QPalette::Text));
        p.drawText(r.adjusted(6, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::fromStdString(shown_.kTokens[std::size_t(j)]));
    }
    for (int i = 0; i < static_cast<int>(shown_.qTokens.size()); ++i) {
        const QRect r = queryRect(i).adjusted(0, 1, 0, -1);
        const bool selected =
            std::find(shown_.queries.begin(), shown_.queries.end(), i) != shown_.queries.end();
        if (selected) p.fillRect(r, QColor(31, 119, 180, 60));
        if (i == hoverQuery_) p.fillRect(r, QColor(255, 200, 0, 90));
        p.setFont(selected ? bold : font());
        p.setPen(pal.color(QPalette::Text));
        p.drawText(r.adjusted(0, 0, -6, 0), Qt::AlignRight | Qt::AlignVCenter,
                   QString::fromStdString(shown_.qTokens[std::size_t(i)]));
    }
    p.setFont(font());
    for (const Line& l : visibleLines()) {
        QColor c = l.head < 0 ? QColor(Qt::black) : headColor(l.head);
        c.setAlphaF(std::clamp(double(l.weight), 0.0, 1.0));
        p.setPen(QPen(c, 2));
        p.drawLine(QPointF(x0, queryRect(l.query).center().y() + 0.5),
                   QPointF(x1, keyRect(l.key).center().y() + 0.5));
    }
}

void LinesView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    int q = -1, k = -1;
    for (int i = 0; i < static_cast<int>(shown_.qTokens.size()); ++i)
        if (queryRect(i).contains(pos)) q = i;
    for (int j = 0; j < static_cast<int>(shown_.kTokens.size()); ++j)
        if (keyRect(j).contains(pos)) k = j;
    if (q != hoverQuery_ || k != hoverKey_) {
        hoverQuery_ = q;
        hoverKey_ = k;
        update();
    }
}

void LinesView::leaveEvent(QEvent*) {
    hoverQuery_ = hoverKey_ = -1;
    update();
}

void LinesView::mousePressEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    for (int h = 0; h < headCount(); ++h)
        if (swatchRect(h).contains(pos)) {
            // One head at a time: its swatch selects it (in every view); mean or max: the
            // swatch shows or hides the lines.
            if (options_.reduce != attn::HeadReduce::One)
                return setHeadVisible(h, hidden_[std::size_t(h)]);
            Selection s = selection_;
            s.head = h;
            return Q_EMIT selectionRequested(s);
        }
    for (int i = 0; i < static_cast<int>(shown_.qTokens.size()); ++i)
        if (queryRect(i).contains(pos))
            return Q_EMIT selectionRequested(clickedQuery(i, event->modifiers()));
    for (int j = 0; j < static_cast<int>(shown_.kTokens.size()); ++j)
        if (keyRect(j).contains(pos))
            return Q_EMIT selectionRequested(clickedKey(j, event->modifiers()));
}
