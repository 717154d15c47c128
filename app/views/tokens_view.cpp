// AttnScope — CircuitsVis's coloured tokens. GPL-3.0-or-later.
#include "views/tokens_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace {
constexpr int kTokensMargin = 12;
constexpr int kLine = 30;         // height of a line of tokens
constexpr int kPad = 5;           // inside a token box
constexpr int kTokensGap = 4;     // between boxes
constexpr int kTokensTitle = 44;  // title and legend
}  // namespace

TokensView::TokensView(QWidget* parent) : AttentionView(QStringLiteral("tokensView"), parent) {
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

bool TokensView::isCross() const {
    return result_ && result_->q_tokens != result_->k_tokens;
}

int TokensView::flow(const std::vector<std::string>& tokens, int width, int y,
                     std::vector<QRect>* boxes) const {
    const QFontMetrics fm(font());
    int x = kTokensMargin;
    boxes->clear();
    for (const std::string& t : tokens) {
        const int w = fm.horizontalAdvance(QString::fromStdString(t)) + 2 * kPad;
        if (x + w > width - kTokensMargin && x > kTokensMargin) {
            x = kTokensMargin;
            y += kLine;
        }
        boxes->emplace_back(x, y, w, kLine - kTokensGap);
        x += w + kTokensGap;
    }
    return y + kLine;
}

int TokensView::layoutFor(int width, std::vector<QRect>* source, std::vector<QRect>* shaded,
                          int* sourceTop, int* shadedTop) const {
    // With self-attention one paragraph is both sides; cross-attention shows the query sentence
    // (the source of the shading) first, then the shaded key sentence (swapped when reversed).
    const bool cross = isCross();
    const auto& src = options_.reverse ? shown_.kTokens : shown_.qTokens;
    const auto& dst = options_.reverse ? shown_.qTokens : shown_.kTokens;
    int y = kTokensMargin + kTokensTitle;
    if (cross) {
        *sourceTop = y;
        y = flow(src, width, y + 18, source) + 8;
    }
    *shadedTop = y;
    const int bottom = flow(dst, width, y + (cross ? 18 : 0), shaded) + kTokensMargin;
    if (!cross) *source = *shaded;
    return bottom;
}

void TokensView::relayout() {
    bottom_ = layoutFor(width(), &sourceBoxes_, &shadedBoxes_, &sourceTop_, &shadedTop_);
}

int TokensView::heightForWidth(int width) const {
    std::vector<QRect> a, b;
    int t0 = 0, t1 = 0;
    return layoutFor(width, &a, &b, &t0, &t1);
}

QSize TokensView::sizeHint() const {
    return {700, heightForWidth(700)};
}

void TokensView::rebuild() {
    AttentionView::rebuild();
    const auto& source = options_.reverse ? shown_.kTokens : shown_.qTokens;
    if (hover_ >= int(source.size())) hover_ = -1;
    relayout();
    setMinimumHeight(bottom_);
    updateGeometry();
    update();
}

void TokensView::resizeEvent(QResizeEvent*) {
    relayout();
}

Eigen::RowVectorXf TokensView::shading() const {
    if (!result_ || shown_.weights.size() == 0) return {};
    const auto& w = shown_.weights;
    const auto combine = selection_.sum ? attn::Combine::Sum : attn::Combine::Mean;
    if (options_.reverse) {
        std::vector<attn::Index> keys;
        if (hover_ >= 0)
            keys.push_back(hover_);
        else
            keys = shown_.keys;
        if (keys.empty()) return Eigen::RowVectorXf::Zero(w.rows());
        return attn::combined_column(w, keys, combine).transpose();
    }
    if (hover_ >= 0) return w.row(hover_);
    if (shown_.queries.empty()) return Eigen::RowVectorXf::Zero(w.cols());
    return shown_.selectedRow(selection_.sum);
}

QRect TokensView::shadedRect(int t) const {
    return t >= 0 && t < int(shadedBoxes_.size()) ? shadedBoxes_[std::size_t(t)] : QRect();
}

QRect TokensView::sourceRect(int t) const {
    return t >= 0 && t < int(sourceBoxes_.size()) ? sourceBoxes_[std::size_t(t)] : QRect();
}

void TokensView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette pal = palette();
    if (!result_ || shown_.weights.size() == 0) {
        p.drawText(rect(), Qt::AlignCenter, tr("No attention to show"));
        return;
    }
    const Eigen::RowVectorXf v = shading();
    const float top = v.size() ? std::max(v.maxCoeff(), 1e-6f) : 1.f;
    const QString heads = options_.reduce == attn::HeadReduce::One
                              ? tr("head %1").arg(selection_.head + 1)
                              : (options_.reduce == attn::HeadReduce::Mean ? tr("mean of heads")
                                                                           : tr("max of heads"));
    QString what;
    const auto& srcTokens = options_.reverse ? shown_.kTokens : shown_.qTokens;
    if (hover_ >= 0 && hover_ < int(srcTokens.size()))
        what = (options_.reverse ? tr("attention each query gives key “%1”")
                                 : tr("attention query “%1” gives each token"))
                   .arg(QString::fromStdString(srcTokens[std::size_t(hover_)]));
    else if (options_.reverse)
        what = shown_.keys.size() > 1 ? tr("attention each query gives the %1 of %2 selected keys")
                                            .arg(selection_.sum ? tr("sum") : tr("mean"))
                                            .arg(shown_.keys.size())
               : shown_.key >= 0
                   ? tr("attention each query gives the selected key “%1”")
                         .arg(QString::fromStdString(shown_.kTokens[std::size_t(shown_.key)]))
                   : tr("hover or select a key");
    else
        what = shown_.queries.empty()
                   ? tr("hover or select a query")
                   : tr("attention of the %1").arg(selectionSummary(selection_, result_->q_tokens));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRect(kTokensMargin, kTokensMargin, width() - 2 * kTokensMargin, 20),
               Qt::AlignLeft | Qt::AlignVCenter, tr("Text view (%1): %2").arg(heads, what));
    p.setFont(font());
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRect(kTokensMargin, kTokensMargin + 20, width() - 2 * kTokensMargin, 18),
               Qt::AlignLeft | Qt::AlignVCenter,
               tr("darkest = %1%2")
                   .arg(top, 0, 'f', 3)
                   .arg(shown_.merged ? tr(" · words: keys summed, queries averaged") : QString()));
    const QColor ink = options_.reverse ? QColor(214, 39, 40) : QColor(31, 119, 180);
    const bool cross = isCross();
    if (cross) {
        p.drawText(QPoint(kTokensMargin, sourceTop_ + 12),
                   options_.reverse ? tr("keys (hover or click one)")
                                    : tr("queries (hover or click one)"));
        p.drawText(QPoint(kTokensMargin, shadedTop_ + 12),
                   options_.reverse ? tr("queries, shaded") : tr("keys, shaded"));
        for (int t = 0; t < int(sourceBoxes_.size()); ++t) {
            p.setPen(pal.color(QPalette::Mid));
            p.drawRect(sourceBoxes_[std::size_t(t)]);
            p.setPen(pal.color(QPalette::Text));
            p.drawText(sourceBoxes_[std::size_t(t)], Qt::AlignCenter,
                       QString::fromStdString(srcTokens[std::size_t(t)]));
        }
    }
    const auto& shadedTokens = options_.reverse ? shown_.qTokens : shown_.kTokens;
    for (int t = 0; t < int(shadedBoxes_.size()); ++t) {
        const QRect r = shadedBoxes_[std::size_t(t)];
        const double a = t < v.size() ? std::clamp(double(v(t)) / top, 0.0, 1.0) : 0.0;
        QColor fill = ink;
        fill.setAlphaF(a * 0.85);
        p.fillRect(r, fill);
        p.setPen(a > 0.6 ? QColor(Qt::white) : pal.color(QPalette::Text));
        p.drawText(r, Qt::AlignCenter, QString::fromStdString(shadedTokens[std::size_t(t)]));
    }
    // Outline the source tokens: selected (solid) and hovered (dashed).
    const auto outline = [&](int t, Qt::PenStyle style) {
        const QRect r = sourceRect(t);
        if (r.isNull()) return;
        p.setPen(QPen(pal.color(QPalette::Text), 2, style));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(-1, -1, 1, 1));
    };
    if (options_.reverse) {
        for (attn::Index k : shown_.keys)
            outline(int(k), Qt::SolidLine);
    } else {
        for (attn::Index q : shown_.queries)
            outline(int(q), Qt::SolidLine);
    }
    if (hover_ >= 0) outline(hover_, Qt::DashLine);
}

int TokensView::sourceAt(const QPoint& pos) const {
    for (int t = 0; t < int(sourceBoxes_.size()); ++t)
        if (sourceBoxes_[std::size_t(t)].contains(pos)) return t;
    return -1;
}

void TokensView::mouseMoveEvent(QMouseEvent* event) {
    const int t = sourceAt(event->position().toPoint());
    if (t != hover_) {
        hover_ = t;
        update();
    }
    if (t >= 0) {
        const Eigen::RowVectorXf v = shading();
        const auto& shaded = options_.reverse ? shown_.qTokens : shown_.kTokens;
        QString text;
        for (int j = 0; j < v.size() && j < int(shaded.size()); ++j)
            if (v(j) >= 0.05f)
                text += QStringLiteral("%1: %2\n")
                            .arg(QString::fromStdString(shaded[std::size_t(j)]))
                            .arg(v(j), 0, 'f', 3);
        setToolTip(text.trimmed());
    }
}

void TokensView::leaveEvent(QEvent*) {
    hover_ = -1;
    update();
}

void TokensView::mousePressEvent(QMouseEvent* event) {
    const int t = sourceAt(event->position().toPoint());
    if (t < 0) return;
    Q_EMIT selectionRequested(options_.reverse ? clickedKey(t, event->modifiers())
                                               : clickedQuery(t, event->modifiers()));
}
