// AttnScope — keeps a QCustomPlot readable at any size. GPL-3.0-or-later.
#include "views/plot_fit.hpp"

#include <QFontMetrics>
#include <QHash>
#include <QPointer>
#include <algorithm>
#include <cmath>

#include "views/qcp.hpp"

namespace {

constexpr int kLabelGap = 8;  // pixels between neighbouring tick labels

/// Along-axis extent of a tick label, rotation included.
double labelExtent(const QCPAxis* axis, const QFontMetrics& fm, const QString& text) {
    const double w = fm.horizontalAdvance(text), h = fm.height();
    const double a = std::abs(axis->tickLabelRotation()) * M_PI / 180.0;
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const double along =
        horizontal ? w * std::cos(a) + h * std::sin(a) : w * std::sin(a) + h * std::cos(a);
    // Parallel rotated labels only need their line height apart, measured across them.
    if (a > 0.2 && a < M_PI - 0.2) return std::min(along, h / std::sin(a));
    return along;
}

bool labelsOverlap(const QCPAxis* axis) {
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const QFontMetrics fm(axis->tickLabelFont());
    double lastPos = 0, lastHalf = 0;
    bool first = true;
    for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
        if (!axis->range().contains(ticks[i])) continue;
        const double pos = axis->coordToPixel(ticks[i]);
        const double half = labelExtent(axis, fm, labels[i]) / 2;
        if (!first && std::abs(pos - lastPos) < lastHalf + half + kLabelGap) return true;
        first = false;
        lastPos = pos;
        lastHalf = half;
    }
    return false;
}

/// Breaks text at the space nearest its middle (once).
QString wrapOnce(const QString& text) {
    if (text.contains(QLatin1Char('\n'))) return text;
    const int mid = int(text.size()) / 2;
    int best = -1;
    for (int i = 0; i < text.size(); ++i)
        if (text[i] == QLatin1Char(' ') && (best < 0 || std::abs(i - mid) < std::abs(best - mid)))
            best = i;
    if (best <= 0) return text;
    return text.left(best) + QLatin1Char('\n') + text.mid(best + 1);
}

/// QCustomPlot::updateLayout is protected: the same three phases, from outside.
void relayout(QCustomPlot* plot) {
    QCPLayoutGrid* layout = plot->plotLayout();
    layout->update(QCPLayoutElement::upPreparation);
    layout->update(QCPLayoutElement::upMargins);
    layout->update(QCPLayoutElement::upLayout);
}

class PlotFitter : public QObject {
  public:
    PlotFitter(QCustomPlot* plot, bool legendBelow)
        : QObject(plot), plot_(plot), legendBelow_(legendBelow) {
        connect(plot, &QCustomPlot::afterLayout, this, &PlotFitter::fit);
    }

  private:
    void fit() {
        if (busy_) return;  // re-entry guard
        busy_ = true;
        const bool moved = placeLegend() | wrapTitles();
        if (moved) relayout(plot_);
        fitTicks();
        fitTextTicks();
        busy_ = false;
    }

    QList<QCPAxis*> numericAxes() const {
        QList<QCPAxis*> out;
        for (QCPAxisRect* rect : plot_->axisRects())
            for (QCPAxis* axis : rect->axes()) {
                if (!axis->visible() || !axis->tickLabels()) continue;
                if (axis->ticker().dynamicCast<QCPAxisTickerText>()) continue;
                out.push_back(axis);
            }
        return out;
    }

    void fitTicks() {
        const QList<QCPAxis*> axes = numericAxes();
        // A new length: start again from the owner's tick count, then thin while crowded.
        bool reset = false;
        for (QCPAxis* axis : axes) {
            QSharedPointer<QCPAxisTicker> t = axis->ticker();
            if (!wanted_.contains(t.data())) wanted_.insert(t.data(), t->tickCount());
            const int length = axis->orientation() == Qt::Horizontal ? axis->axisRect()->width()
                                                                     : axis->axisRect()->height();
            if (lengths_.value(axis, -1) != length && t->tickCount() != wanted_[t.data()]) {
                t->setTickCount(wanted_[t.data()]);
                reset = true;
            }
            lengths_[axis] = length;
        }
        if (reset) relayout(plot_);
        for (int pass = 0; pass < 8; ++pass) {
            bool thinned = false;
            for (QCPAxis* axis : axes) {
                QSharedPointer<QCPAxisTicker> t = axis->ticker();
                if (t->tickCount() > 1 && labelsOverlap(axis)) {
                    t->setTickCount(t->tickCount() - 1);
                    thinned = true;
                }
            }
            if (!thinned) break;
            relayout(plot_);
        }
    }

    /// Token labels (text tickers) keep every k-th label, k as small as keeps them apart.
    void fitTextTicks() {
        for (QCPAxisRect* rect : plot_->axisRects())
            for (QCPAxis* axis : rect->axes()) {
                auto t = axis->ticker().dynamicCast<QCPAxisTickerText>();
                if (!t || !axis->visible() || !axis->tickLabels()) continue;
                // New labels from the owner since: those are the ones to thin.
                if (t->ticks() != shownTicks_.value(t.data())) fullTicks_[t.data()] = t->ticks();
                const QMap<double, QString>& full = fullTicks_[t.data()];
                const int length =
                    axis->orientation() == Qt::Horizontal ? rect->width() : rect->height();
                if (textLengths_.value(axis, -1) == length &&
                    t->ticks() == shownTicks_.value(t.data()))
                    continue;
                for (int step = 1; step <= std::max<int>(1, int(full.size())); ++step) {
                    QMap<double, QString> keep;
                    int i = 0;
                    for (auto it = full.cbegin(); it != full.cend(); ++it, ++i)
                        if (i % step == 0) keep.insert(it.key(), it.value());
                    if (keep != t->ticks()) {
                        t->setTicks(keep);
                        relayout(plot_);
                    }
                    if (!labelsOverlap(axis)) break;
                }
                shownTicks_[t.data()] = t->ticks();
                textLengths_[axis] =
                    axis->orientation() == Qt::Horizontal ? rect->width() : rect->height();
            }
    }

    bool wrapTitles() {
        bool changed = false;
        for (int i = 0; i < plot_->plotLayout()->elementCount(); ++i) {
            auto* title = qobject_cast<QCPTextElement*>(plot_->plotLayout()->elementAt(i));
            if (!title) continue;
            // Its own cell (a colour scale may take a column beside it), else the whole plot.
            const int cell = title->outerRect().width();
            const int room = (cell > 16 ? cell : plot_->viewport().width()) - 8;
            // The owner may have set a new title since: that is the text to fit.
            if (title->text() != shown_.value(title)) original_[title] = title->text();
            const QString full = original_.value(title);
            const QFontMetrics fm(title->font());
            const QString want = fm.horizontalAdvance(full) > room ? wrapOnce(full) : full;
            if (want != title->text()) {
                title->setText(want);
                changed = true;
            }
            shown_[title] = want;
        }
        return changed;
    }

    bool placeLegend() {
        QCPLegend* legend = plot_->legend;
        if (!legendBelow_ || !legend || !plot_->axisRect()) return false;
        QCPLayoutInset* inset = plot_->axisRect()->insetLayout();
        bool changed = false;
        if (legend->visible() && legend->layout() == inset) {
            inset->take(legend);
            inset->simplify();
            QCPLayoutGrid* grid = plot_->plotLayout();
            const int row = grid->rowCount();
            grid->addElement(row, 0, legend);
            grid->setRowStretchFactor(row, 0.001);
            legend->setMargins(QMargins(4, 2, 4, 4));
            // The legend's frame is drawn one pixel right of and below its rect: at the plot's
            // edge that line would fall outside the widget and the legend would look cut off.
            grid->setMargins(QMargins(0, 0, 1, 2));
            changed = true;
        } else if (!legend->visible() && legend->layout() == plot_->plotLayout()) {
            // A hidden legend would still take its row: give it back to the axes.
            plot_->plotLayout()->take(legend);
            plot_->plotLayout()->simplify();
            inset->addElement(legend, Qt::AlignTop | Qt::AlignRight);
            plot_->plotLayout()->setMargins(QMargins());
            changed = true;
        }
        if (!legend->visible() || legend->layout() != plot_->plotLayout()) return changed;
        int widest = 1;
        int items = 0;
        for (int i = 0; i < legend->itemCount(); ++i)
            if (QCPAbstractLegendItem* item = legend->item(i)) {  // empty grid cells are null
                widest = std::max(widest, item->minimumOuterSizeHint().width());
                ++items;
            }
        const int room = plot_->viewport().width() - 12;
        const int columns =
            std::clamp((room + legend->columnSpacing()) / (widest + legend->columnSpacing()), 1,
                       std::max(1, items));
        if (columns != legend->wrap() || legend->fillOrder() != QCPLayoutGrid::foColumnsFirst) {
            legend->setWrap(columns);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
            changed = true;
        }
        return changed;
    }

    QCustomPlot* plot_;
    bool legendBelow_;
    bool busy_ = false;
    QHash<QCPAxisTicker*, int> wanted_;
    QHash<QCPAxis*, int> lengths_, textLengths_;
    QHash<QCPAxisTicker*, QMap<double, QString>> fullTicks_, shownTicks_;
    QHash<QCPTextElement*, QString> original_, shown_;
};

}  // namespace

void keepPlotReadable(QCustomPlot* plot, bool legendBelow) {
    new PlotFitter(plot, legendBelow);
}
