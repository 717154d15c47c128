// AttnScope — the colour range and colour-bar ticks of attention weights. GPL-3.0-or-later.
#include "views/weight_scale.hpp"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

QCPRange weightColorRange(const WeightSpan& span, bool logScale) {
    const double hi = span.largest > 0 ? span.largest : 1.0;
    if (!logScale) return {0, hi};
    const double decadesFloor = hi * std::pow(10.0, -kLogFloorDecades);
    double lo = std::isfinite(span.smallestPositive) ? span.smallestPositive : decadesFloor;
    lo = std::max(lo, hi * 1e-4);
    // Zeros must sit below every positive weight, and equal weights need some range: otherwise
    // the 1s of a hard max share the bottom colour with the 0s.
    if (span.hasZero || lo >= hi) lo = std::min(lo, decadesFloor);
    return {lo, hi};
}

void setWeightScaleType(QCPColorScale* scale, bool logScale) {
    scale->setDataScaleType(logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    QCPAxis* axis = scale->axis();
    if (logScale) {
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("g"));
        axis->setNumberPrecision(3);
    } else {
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setNumberFormat(QStringLiteral("gb"));
        axis->setNumberPrecision(3);
    }
}

QString weightScaleLabel(bool logScale, double floor) {
    if (!logScale) return QCoreApplication::translate("weightScale", "weight");
    return QCoreApplication::translate("weightScale", "weight (log; ≤ %1 drawn as %1)")
        .arg(QString::number(floor, 'g', 3));
}
