// AttnScope — the numbers behind the model view: every layer's heads as thumbnails.
// GPL-3.0-or-later.
#include "views/model_grid_data.hpp"

#include "attn/scene_layers.hpp"

#include <QFileInfo>
#include <algorithm>
#include <cmath>

#include "attn/aggregate.hpp"
#include "attn/scene_layers.hpp"

namespace model_grid {
namespace {

constexpr QRgb kMaskedColour = qRgb(200, 200, 200);

/// visible: the scene's allowed pairs when the head keeps no masked scores (may be empty).
QImage thumbnail(const attn::HeadResult& head, const attn::BoolMatrix& visible, int maxSide,
                 double* maxWeight) {
    const attn::Matrix& w = head.weights;
    const bool hasMask = head.masked.rows() == w.rows() && head.masked.cols() == w.cols();
    const attn::AggregatedGrid g =
        hasMask ? attn::aggregate(w, &head.masked, maxSide, maxSide, attn::Aggregation::Max)
                : attn::aggregate(w, visible, maxSide, maxSide, attn::Aggregation::Max);
    const double top = std::max(w.size() ? double(w.maxCoeff()) : 0.0, 1e-12);
    *maxWeight = top;
    QImage image(g.cols, g.rows, QImage::Format_Indexed8);
    image.setColorTable(thumbnailColors(ColorMapKind::Viridis));
    for (int r = 0; r < g.rows; ++r) {
        uchar* line = image.scanLine(r);
        for (int c = 0; c < g.cols; ++c) {
            const double t = std::clamp(g.at(r, c) / top, 0.0, 1.0);
            line[c] =
                g.isMasked(r, c) ? uchar(kMaskedIndex) : uchar(std::lround(t * (kMaskedIndex - 1)));
        }
    }
    return image;
}

}  // namespace

QList<QRgb> thumbnailColors(ColorMapKind kind) {
    QList<QRgb> colors;
    colors.reserve(256);
    for (int i = 0; i < kMaskedIndex; ++i)
        colors.push_back(mapColor(kind, double(i) / (kMaskedIndex - 1)));
    colors.push_back(kMaskedColour);
    return colors;
}

Thumbnails computeThumbnails(const attn::SceneSpec& spec, int maxSide, attn::Progress* progress,
                             const attn::SceneResult* known) {
    Thumbnails t;
    t.layers = static_cast<int>(attn::layer_count(spec));
    if (spec.data) {
        const auto& comps = spec.data->components;
        const QString file = QFileInfo(QString::fromStdString(spec.data->source)).fileName();
        const auto c = static_cast<std::size_t>(spec.component);
        const QString comp = c < comps.size() ? QString::fromStdString(comps[c].name) : QString();
        t.title = comp.isEmpty() ? file : file + QStringLiteral(" — ") + comp;
    } else {
        t.title = QString::fromStdString(spec.text);
    }
    attn::for_each_layer(
        spec,
        [&](attn::Index, const attn::SceneResult& r) {
            if (t.heads == 0) {
                t.heads = static_cast<int>(r.heads.size());
                t.queries = static_cast<int>(r.q_tokens.size());
                t.keys = static_cast<int>(r.k_tokens.size());
                t.weightsOnly = r.weights_only;
            }
            for (std::size_t h = 0; h < r.heads.size(); ++h) {
                double top = 0;
                t.images.push_back(thumbnail(r.heads[h], r.visible, maxSide, &top));
                t.maxWeight.push_back(top);
                t.entropy.push_back(h < r.stats.size() ? r.stats[h].entropy : 0.0);
            }
        },
        progress, false, known);  // thumbnails need weights and the mask only
    return t;
}

}  // namespace model_grid
