// AttnScope — QCustomPlot colours from the Qt palette. GPL-3.0-or-later.
#include "views/plot_theme.hpp"

#include "views/qcp.hpp"

bool isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Base).lightnessF() < 0.5;
}

void applyPlotTheme(QCustomPlot* plot, const QPalette& palette) {
    const QColor text = palette.color(QPalette::WindowText);
    const QColor base = palette.color(QPalette::Window);
    plot->setBackground(base);
    QColor faint = text;
    faint.setAlphaF(0.45f);
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(QPen(faint, 1));
            axis->setTickPen(QPen(faint, 1));
            axis->setSubTickPen(QPen(faint, 1));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            if (axis->grid()) axis->grid()->setPen(QPen(faint, 0.5, Qt::DotLine));
        }
    }
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
        if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
            title->setTextColor(text);
    }
}

QColor maskedCellColor(const QPalette& palette) {
    // Mid grey hatching: neither the dark nor the bright end of any of our colour maps.
    return isDarkPalette(palette) ? QColor(150, 150, 150) : QColor(120, 120, 120);
}

QColor selectionColor(const QPalette& palette) {
    return isDarkPalette(palette) ? QColor(255, 90, 90) : QColor(230, 30, 30);
}

void placeLegendBelow(QCustomPlot* plot) {
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(1, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(2);
}
