// AttnScope — a head heatmap's layout: readable size, cell shape and token labels.
// GPL-3.0-or-later.
#include <algorithm>
#include <cmath>

#include <QHash>

#include "views/head_heatmap.hpp"
#include "views/token_labels.hpp"

QSize HeadHeatmap::cellBudget() const {
    // Before the first layout the axis rect has no size: estimate it from the widget.
    QRect r = axisRect()->rect();
    if (r.width() < 8 || r.height() < 8) r = QRect(0, 0, width() - 90, height() - 110);
    const double dpr = devicePixelRatioF();
    return {std::max(8, int(r.width() * dpr)), std::max(8, int(r.height() * dpr))};
}

int HeadHeatmap::rowCount() const {
    return result() ? int(result()->q_tokens.size()) : 0;
}

int HeadHeatmap::columnCount() const {
    return result() ? int(result()->k_tokens.size()) : 0;
}

namespace {

/// What decides a head's readable margins besides its labels: fonts, axis texts, a colour scale.
QString marginsKey(const QCustomPlot& plot, const QCPTextElement& title,
                   const QCPColorScale* scale) {
    const auto axisKey = [](const QCPAxis* a) {
        return a->tickLabelFont().key() + QLatin1Char('|') + a->labelFont().key() +
               QLatin1Char('|') + a->label() + QLatin1Char('|') +
               QString::number(a->tickLabelRotation()) + QLatin1Char(',') +
               QString::number(a->tickLabelPadding()) + QLatin1Char(',') +
               QString::number(a->labelPadding()) + QLatin1Char(',') +
               QString::number(a->tickLengthOut()) + QLatin1Char('|');
    };
    return axisKey(plot.xAxis) + axisKey(plot.yAxis) + title.font().key() + QLatin1Char('|') +
           (scale ? axisKey(scale->axis()) : QStringLiteral("-")) + QLatin1Char('|') +
           QString::number(plot.devicePixelRatioF());
}

QString joined(const std::vector<std::string>& tokens) {
    QString out;
    for (const std::string& t : tokens)
        out += QString::fromStdString(t) + QChar(0x1f);
    return out;
}

}  // namespace

QSize HeadHeatmap::readableMargins() {
    if (margins_.isValid()) return margins_;
    // Measured, not estimated: lay the plot out once on a large viewport with every token
    // labelled and both title lines; what is not the axis rect is title, labels and scale.
    // The widest labels stand for all: laying out 32k labels per axis took seconds.
    static const std::vector<std::string> none;
    constexpr std::size_t kMeasured = 256;
    const std::vector<std::string> keys =
        widestTokens(result() ? result()->k_tokens : none, kMeasured);
    const std::vector<std::string> queries =
        widestTokens(result() ? result()->q_tokens : none, kMeasured);
    // The heads of a grid share tokens and fonts: measured once, the margins serve them all (each
    // of 12 heads measuring its 2 × 256 labels was a fifth of `attnscope render`'s CPU). GUI
    // thread only, like every widget.
    static QHash<QString, QSize> measured;
    const QString key =
        marginsKey(*this, *title_, scale_) + joined(keys) + QChar(0x1e) + joined(queries);
    if (const auto hit = measured.constFind(key); hit != measured.cend()) {
        margins_ = *hit;  // the ticks were not touched: nothing to restore
        return margins_;
    }
    setTokenTicks(*xTicks_, keys, 1e9, 1);
    setTokenTicks(*yTicks_, queries, 1e9, 1);
    const QString title = title_->text();
    title_->setText(tr("Head\nH"));
    const QRect old = viewport();
    const QMargins oldMinimum = axisRect()->minimumMargins();
    setViewport(QRect(0, 0, 4000, 4000));
    axisRect()->setMinimumMargins(kBaseMargins);
    updateLayout();
    const QRect r = axisRect()->rect();
    margins_ = QSize(4000 - r.width(), 4000 - r.height());
    if (measured.size() >= 64) measured.clear();  // a few scenes' worth is plenty
    measured.insert(key, margins_);
    // Back to the layout as it was (square-cell padding included).
    title_->setText(title);
    axisRect()->setMinimumMargins(oldMinimum);
    setViewport(old);
    rebuildTicks();
    updateLayout();
    return margins_;
}

QSize HeadHeatmap::readableSize() {
    const QFontMetrics fm(xAxis->tickLabelFont());
    // The pitch rebuildTicks needs to label every token (the wider, rotated keys' pitch on
    // both axes, so square cells keep it too); 110…260 px per axis.
    const double pitch = fm.height() * 1.05;
    const auto axis = [pitch](int count) {
        return int(std::clamp(std::ceil(count * pitch) + 2, 110.0, 260.0));
    };
    const QSize margins = readableMargins();
    return {margins.width() + axis(columnCount()), margins.height() + axis(rowCount())};
}

void HeadHeatmap::updateLayoutNow() {
    setViewport(rect());  // a hidden widget (offscreen rendering) gets no resize events
    // A little room on the right keeps neighbouring heads' labels apart.
    const QMargins base = kBaseMargins;
    axisRect()->setMinimumMargins(base);
    updateLayout();
    // The visible region (the whole matrix unless zoomed) is what the cells are shaped for.
    const HeatmapViewport& v = region();
    const bool zoomed = v.n == rowCount() && v.m == columnCount();
    const int n = zoomed ? int(v.rows) : rowCount();
    const int m = zoomed ? int(v.cols) : columnCount();
    if (n == 0 || m == 0) return;
    // Cells no flatter than the matrix itself (at most 2:1): a 6-token head in a wide slot is
    // not drawn as flat stripes, while a 14 × 7 cross-attention head fills its slot with
    // rectangular cells instead of a thin strip of square ones.
    const QRect r = axisRect()->rect();
    const double stretch = std::clamp(std::max(double(n) / m, double(m) / n), 1.0, 2.0);
    double cellW = r.width() / double(m), cellH = r.height() / double(n);
    cellW = std::min(cellW, cellH * stretch);
    cellH = std::min(cellH, cellW * stretch);
    const int padX = std::max(0, int(r.width() - cellW * m));
    const int padY = std::max(0, int(r.height() - cellH * n));
    if (padX < 2 && padY < 2) return;
    const QMargins now = axisRect()->margins();
    axisRect()->setMinimumMargins(QMargins(now.left() + padX / 2, now.top() + padY / 2,
                                           now.right() + padX - padX / 2,
                                           now.bottom() + padY - padY / 2));
    updateLayout();
}

void HeadHeatmap::rebuildTicks() {
    static const std::vector<std::string> none;
    const QRect r = axisRect()->rect();
    double w = r.width() > 8 ? r.width() : width() - 90;
    double h = r.height() > 8 ? r.height() : height() - 110;
    const QFontMetrics fm(xAxis->tickLabelFont());
    const double pitch = fm.height() * 1.05;
    const HeatmapViewport& v = region();
    const bool zoomed = v.n == rowCount() && v.m == columnCount();
    const int n = zoomed ? int(v.rows) : rowCount();
    const int m = zoomed ? int(v.cols) : columnCount();
    if (!margins_.isValid() && n > 0 && m > 0) readableMargins();  // measures, then comes back
    if (margins_.isValid() && n > 0 && m > 0) {
        // The room the cells get with every token labelled (measured margins, cells at most
        // 2:1): thinned labels are longer, and would otherwise shrink the axes they were
        // thinned for and keep themselves thinned.
        const double stretch = std::clamp(std::max(double(n) / m, double(m) / n), 1.0, 2.0);
        double cellW = (width() - margins_.width()) / double(m);
        double cellH = (height() - margins_.height()) / double(n);
        cellW = std::min(cellW, cellH * stretch);
        cellH = std::min(cellH, cellW * stretch);
        if (cellW >= pitch && cellH >= pitch) w = cellW * m, h = cellH * n;
    }
    // Rotated key labels need their line height, not their width, between them.
    setTokenTicks(*xTicks_, result() ? result()->k_tokens : none, zoomed ? v.col : 0, m, w, pitch);
    setTokenTicks(*yTicks_, result() ? result()->q_tokens : none, zoomed ? v.row : 0, n, h, pitch);
}
