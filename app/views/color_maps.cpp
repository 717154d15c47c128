// AttnScope — perceptually uniform colour maps for QCustomPlot. GPL-3.0-or-later.
#include "views/color_maps.hpp"

#include <QColor>
#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace {

// Evenly spaced samples of matplotlib's maps: the one definition of each map. The 256-entry
// tables are interpolated from them in RGB once (visually indistinguishable from matplotlib's).
constexpr std::array<const char*, 11> kViridis = {"#440154", "#482576", "#414487", "#35608d",
                                                  "#2a788e", "#21908c", "#22a884", "#43bf71",
                                                  "#7ad151", "#bbdf27", "#fde725"};
constexpr std::array<const char*, 11> kMagma = {"#000004", "#140e36", "#3b0f70", "#641a80",
                                                "#8c2981", "#b73779", "#de4968", "#f7705c",
                                                "#fe9f6d", "#fecf92", "#fcfdbf"};
constexpr std::array<const char*, 10> kCividis = {"#00204d", "#00336f", "#39486b", "#575d6d",
                                                  "#707173", "#8a8779", "#a69d75", "#c4b56c",
                                                  "#e4cf5b", "#ffea46"};
// Greys runs light → dark like matplotlib's "Greys": strong attention is dark ink.
constexpr std::array<const char*, 2> kGreys = {"#ffffff", "#000000"};

std::span<const char* const> stopsOf(ColorMapKind kind) {
    switch (kind) {
        case ColorMapKind::Magma:
            return kMagma;
        case ColorMapKind::Cividis:
            return kCividis;
        case ColorMapKind::Greys:
            return kGreys;
        case ColorMapKind::Viridis:
            break;
    }
    return kViridis;
}

std::array<QRgb, 256> tableOf(std::span<const char* const> stops) {
    std::array<QRgb, 256> table{};
    const double last = double(stops.size() - 1);
    for (int i = 0; i < 256; ++i) {
        const double x = i / 255.0 * last;
        const auto k = std::min(std::size_t(x), stops.size() - 2);
        const double f = x - double(k);
        const QColor a = QColor::fromString(QLatin1StringView(stops[k]));
        const QColor b = QColor::fromString(QLatin1StringView(stops[k + 1]));
        auto mix = [f](int u, int v) { return int(std::lround(u * (1 - f) + v * f)); };
        table[std::size_t(i)] =
            qRgb(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
    }
    return table;
}

}  // namespace

const std::array<QRgb, 256>& colorTable(ColorMapKind kind) {
    static const std::array<std::array<QRgb, 256>, 4> tables = {
        tableOf(stopsOf(ColorMapKind::Viridis)), tableOf(stopsOf(ColorMapKind::Magma)),
        tableOf(stopsOf(ColorMapKind::Cividis)), tableOf(stopsOf(ColorMapKind::Greys))};
    return tables[std::size_t(kind)];
}

QRgb mapColor(ColorMapKind kind, double t) {
    if (!(t > 0)) t = 0;  // also maps NaN to the lowest colour
    if (t > 1) t = 1;
    return colorTable(kind)[std::size_t(std::lround(t * 255))];
}

QCPColorGradient makeGradient(ColorMapKind kind) {
    const std::array<QRgb, 256>& table = colorTable(kind);
    QCPColorGradient g;
    g.clearColorStops();
    for (int i = 0; i < 256; ++i)
        g.setColorStopAt(i / 255.0, QColor::fromRgb(table[std::size_t(i)]));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    return g;
}

QString colorMapId(ColorMapKind kind) {
    switch (kind) {
        case ColorMapKind::Magma:
            return QStringLiteral("magma");
        case ColorMapKind::Cividis:
            return QStringLiteral("cividis");
        case ColorMapKind::Greys:
            return QStringLiteral("greys");
        case ColorMapKind::Viridis:
            break;
    }
    return QStringLiteral("viridis");
}

ColorMapKind colorMapFromId(const QString& id) {
    for (ColorMapKind k : allColorMaps())
        if (colorMapId(k).compare(id, Qt::CaseInsensitive) == 0) return k;
    return ColorMapKind::Viridis;
}

QList<ColorMapKind> allColorMaps() {
    return {ColorMapKind::Viridis, ColorMapKind::Magma, ColorMapKind::Cividis, ColorMapKind::Greys};
}

QString colorMapLabel(ColorMapKind kind) {
    switch (kind) {
        case ColorMapKind::Magma:
            return QObject::tr("Magma");
        case ColorMapKind::Cividis:
            return QObject::tr("Cividis");
        case ColorMapKind::Greys:
            return QObject::tr("Greys");
        case ColorMapKind::Viridis:
            break;
    }
    return QObject::tr("Viridis");
}
