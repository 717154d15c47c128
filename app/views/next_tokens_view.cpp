// AttnScope — a model's next-token prediction. GPL-3.0-or-later.
#include "views/next_tokens_view.hpp"

#include "views/shown_text.hpp"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace {

constexpr int kRows = 10;  // the prediction's top 10 (attn::model::top_next_tokens)

QString tokenLabel(const std::string& token) {
    // Quoted so a leading space (GPT-2's "Ġ") is seen; core's token_text names control
    // characters and broken bytes ("<0x0A>").
    return quotedToken(QString::fromStdString(token));
}

}  // namespace

NextTokensView::NextTokensView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("nextTokensView"));
    setToolTip(
        tr("The model's prediction for the token after the sentence: the softmax of the last "
           "position's logits. Every control that changes the run changes it."));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void NextTokensView::setTokens(std::vector<attn::NextToken> tokens) {
    tokens_ = std::move(tokens);
    update();
}

QString NextTokensView::rowText(int i) const {
    if (i < 0 || std::size_t(i) >= tokens_.size()) return {};
    const attn::NextToken& t = tokens_[std::size_t(i)];
    return tokenLabel(t.text) + QStringLiteral("  ") + percentText(double(t.probability));
}

int NextTokensView::rowHeight() const {
    return fontMetrics().height() + 4;
}

QSize NextTokensView::sizeHint() const {
    return {260, rowHeight() * kRows + 4};
}

QSize NextTokensView::minimumSizeHint() const {
    return {180, rowHeight() * kRows + 4};
}

void NextTokensView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QFontMetrics fm = fontMetrics();
    if (tokens_.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(6, 0, -6, 0), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("No prediction yet"));
        return;
    }
    const int h = rowHeight();
    // Columns: the token (up to 40 % of the width), the bar, the percentage (fixed width).
    const int numW = std::max(fm.horizontalAdvance(QStringLiteral("100.0 %")),
                              fm.horizontalAdvance(QStringLiteral("<0.001 %"))) +
                     6;
    int tokenW = 0;
    for (const attn::NextToken& t : tokens_)
        tokenW = std::max(tokenW, fm.horizontalAdvance(tokenLabel(t.text)));
    tokenW = std::min(tokenW + 8, width() * 2 / 5);
    const int barX = 4 + tokenW, barW = std::max(10, width() - barX - numW - 4);
    const QColor bar = palette().color(QPalette::Highlight);
    for (std::size_t i = 0; i < tokens_.size() && i < std::size_t(kRows); ++i) {
        const attn::NextToken& t = tokens_[i];
        const int y = 2 + int(i) * h;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(4, y, tokenW - 4, h), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(tokenLabel(t.text), Qt::ElideRight, tokenW - 4));
        const int len = std::max(1, int(std::lround(double(t.probability) * barW)));
        p.fillRect(QRect(barX, y + 3, len, h - 6), bar);
        p.drawText(QRect(barX + barW, y, numW, h), Qt::AlignVCenter | Qt::AlignRight,
                   percentText(double(t.probability)));
    }
}
