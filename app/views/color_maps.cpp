// AttnScope — perceptually uniform colour maps for QCustomPlot. GPL-3.0-or-later.
#include "views/color_maps.hpp"

#include <QColor>
#include <array>
#include <span>

namespace {

// Evenly spaced samples of matplotlib's maps; 10–11 stops interpolated in RGB are visually
// indistinguishable from the 256-entry tables at heatmap sizes.
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

QCPColorGradient fromStops(std::span<const char* const> stops) {
    QCPColorGradient g;
    g.clearColorStops();
    const double last = double(stops.size() - 1);
    for (std::size_t i = 0; i < stops.size(); ++i)
        g.setColorStopAt(double(i) / last, QColor::fromString(QLatin1StringView(stops[i])));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    return g;
}

}  // namespace

QCPColorGradient makeGradient(ColorMapKind kind) {
    switch (kind) {
        case ColorMapKind::Magma:
            return fromStops(kMagma);
        case ColorMapKind::Cividis:
            return fromStops(kCividis);
        case ColorMapKind::Greys:
            return fromStops(kGreys);
        case ColorMapKind::Viridis:
            break;
    }
    return fromStops(kViridis);
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
