// AttnScope — the weights of the selected query in the focused head, as bars. GPL-3.0-or-later.
#include "views/weights_bar.hpp"

#include <QMouseEvent>
#include <cmath>

#include "attn/analysis/view_math.hpp"
#include "model/numbering.hpp"
#include "views/plot_theme.hpp"
#include "views/token_labels.hpp"

WeightsBar::WeightsBar(QWidget* parent) : QCustomPlot(parent) {
    setMinimumHeight(150);
    setToolTip(
        tr("Attention weights of the selected query in the focused head; × marks masked "
           "keys. Click a bar to select that key."));
    plotLayout()->insertRow(0);
    QFont tf = font();
    tf.setWeight(QFont::DemiBold);
    title_ = new QCPTextElement(this, QString(), tf);
    plotLayout()->addElement(0, 0, title_);
    ticks_.reset(new QCPAxisTickerText);
    xAxis->setTicker(ticks_);
    xAxis->setTickLabelRotation(-55);
    xAxis->setSubTicks(false);
    xAxis->grid()->setVisible(false);
    yAxis->setLabel(tr("weight α"));
    yAxis->setRange(0, 1);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.85));
    xAxis->setTickLabelFont(small);
    yAxis->setTickLabelFont(small);
    bars_ = new QCPBars(xAxis, yAxis);
    bars_->setWidthType(QCPBars::wtPlotCoords);
    bars_->setWidth(0.8);
    bars_->setPen(Qt::NoPen);
    bars_->setBrush(QColor(0x21, 0x90, 0x8c));  // viridis mid-tone
    masked_ = new QCPGraph(xAxis, yAxis);
    masked_->setLineStyle(QCPGraph::lsNone);
    masked_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCross, maskedCellColor(palette()), 7));
    applyPlotTheme(this, palette());
    rebuild();
}

void WeightsBar::setResult(SceneResultPtr result) {
    result_ = std::move(result);
    rebuild();
}

void WeightsBar::setSelection(const Selection& selection) {
    selection_ = selection;
    rebuild();
}

QString WeightsBar::titleText() const {
    return title_->text();
}

void WeightsBar::rebuild() {
    const int q = selection_.query, h = selection_.head;
    const bool ok = result_ && h >= 0 && h < int(result_->heads.size()) && q >= 0 &&
                    q < int(result_->q_tokens.size());
    QVector<double> keys, values, maskedKeys, zeros;
    if (ok) {
        // Stored, or recomputed from Q and K for a long (streamed) scene. Several selected
        // queries: their rows combined as attn::combined_row does (sum, or mean of the rows).
        std::vector<attn::Index> several;
        for (int s : selection_.queries)
            if (s >= 0 && s < result_->query_count()) several.push_back(s);
        Eigen::RowVectorXf row = result_->weights_row(h, q);
        if (several.size() > 1) {
            attn::Matrix rows(attn::Index(several.size()), row.size());
            for (std::size_t r = 0; r < several.size(); ++r)
                rows.row(attn::Index(r)) = result_->weights_row(h, several[r]);
            std::vector<attn::Index> all(several.size());
            for (std::size_t r = 0; r < all.size(); ++r)
                all[r] = attn::Index(r);
            row = attn::combined_row(rows, all,
                                     selection_.sum ? attn::Combine::Sum : attn::Combine::Mean);
        }
        const int m = int(row.size());
        for (int k = 0; k < m; ++k) {
            keys.push_back(k);
            values.push_back(row(k));
            // Markers for masked keys help on short sequences; on long ones they are a smear.
            if (m <= 128 && result_->is_masked(h, q, k)) {
                maskedKeys.push_back(k);
                zeros.push_back(0);
            }
        }
        // Several selected keys: the sum or mean of their bars, said in the title.
        QString keysNote;
        if (selection_.keys.size() > 1) {
            double total = 0;
            QStringList names;
            for (int k : selection_.keys)
                if (k >= 0 && k < m) total += row(k), names << QString::number(shown(k));
            if (!selection_.sum && !names.isEmpty()) total /= names.size();
            keysNote =
                tr(" · keys %1: %2 %3")
                    .arg(names.join(QStringLiteral(", ")), selection_.sum ? tr("sum") : tr("mean"))
                    .arg(total, 0, 'f', 3);
        }
        if (several.size() > 1)
            title_->setText(tr("Head %1 · %2 of %3 queries")
                                .arg(shown(h))
                                .arg(selection_.sum ? tr("sum") : tr("mean"))
                                .arg(several.size()) +
                            keysNote);
        else
            title_->setText(tr("Head %1 · query %2 “%3”")
                                .arg(shown(h))
                                .arg(shown(q))
                                .arg(elideToken(result_->q_tokens[std::size_t(q)], 24)) +
                            keysNote);
        const QRect r = axisRect()->rect();
        setTokenTicks(*ticks_, result_->k_tokens, r.width() > 8 ? r.width() : width() - 60,
                      QFontMetrics(xAxis->tickLabelFont()).height() * 1.25);
        xAxis->setRange(-0.5, m - 0.5);
        double top = 0;
        for (double v : values)
            top = std::max(top, v);
        // A sum of several rows can pass 1.
        const double cap = several.size() > 1 && selection_.sum ? double(several.size()) : 1.0;
        yAxis->setRange(0, top > 0 ? std::min(cap, top * 1.1) : 1.0);
    } else {
        title_->setText(tr("Click a cell or a row label to see one query's weights"));
        ticks_->setTicks(QMap<double, QString>{});
    }
    bars_->setData(keys, values, true);
    masked_->setData(maskedKeys, zeros, true);
    replot(rpQueuedRefresh);
}

void WeightsBar::mousePressEvent(QMouseEvent* event) {
    QCustomPlot::mousePressEvent(event);
    if (!result_ || event->button() != Qt::LeftButton) return;
    if (!axisRect()->rect().contains(event->pos())) return;
    const int k = int(std::lround(xAxis->pixelToCoord(event->pos().x())));
    if (k >= 0 && k < int(result_->k_tokens.size())) Q_EMIT keyClicked(k, event->modifiers());
}

void WeightsBar::resizeEvent(QResizeEvent* event) {
    QCustomPlot::resizeEvent(event);
    rebuild();  // label spacing depends on the width
}

void WeightsBar::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(this, palette());
        replot(rpQueuedRefresh);
    }
}
