// AttnScope — every layer's heads as small indexed images. GPL-3.0-or-later.
#include "model/layer_thumbnails.hpp"

#include <QFileInfo>
#include <algorithm>
#include <cmath>

#include "attn/attention/aggregate.hpp"
#include "attn/models/hf_cache.hpp"
#include "attn/scene/model_scene.hpp"

namespace model_grid {
namespace {

/// Head h of r pooled to at most maxSide cells a side (max of each block; a streamed head's
/// blocks come from its overview, never from an n × n matrix).
QImage thumbnail(const attn::SceneResult& r, int h, int maxSide, double* maxWeight) {
    const attn::AggregatedGrid g = r.weights_blocks(h, 0, r.query_count(), 0, r.key_count(),
                                                    maxSide, maxSide, attn::Aggregation::Max);
    double top = 1e-12;
    for (std::size_t k = 0; k < g.values.size(); ++k)
        if (!g.masked[k]) top = std::max(top, g.values[k]);
    *maxWeight = top;
    QImage image(g.cols, g.rows, QImage::Format_Indexed8);
    // A grey ramp until painted: readers give the colour map's table (thumbnailColors).
    QList<QRgb> grey;
    for (int i = 0; i < 256; ++i)
        grey.push_back(qRgb(i, i, i));
    image.setColorTable(grey);
    for (int row = 0; row < g.rows; ++row) {
        uchar* line = image.scanLine(row);
        for (int c = 0; c < g.cols; ++c) {
            const double t = std::clamp(g.at(row, c) / top, 0.0, 1.0);
            line[c] = g.isMasked(row, c) ? uchar(kMaskedIndex)
                                         : uchar(std::lround(t * (kMaskedIndex - 1)));
        }
    }
    return image;
}

}  // namespace

QString sceneTitle(const attn::SceneSpec& spec) {
    if (spec.is_loaded()) {
        const auto& comps = spec.data->components;
        const QString file = QFileInfo(QString::fromStdString(spec.data->source)).fileName();
        const auto c = static_cast<std::size_t>(spec.component);
        const QString comp = c < comps.size() ? QString::fromStdString(comps[c].name) : QString();
        return comp.isEmpty() ? file : file + QStringLiteral(" — ") + comp;
    }
    if (spec.is_model())
        return QString::fromStdString(attn::model::model_name(spec.model->dir)) +
               QStringLiteral(" — ") + QString::fromStdString(spec.text);
    return QString::fromStdString(spec.text);
}

void addLayer(Thumbnails& t, const attn::SceneResult& r, int maxSide) {
    if (t.heads == 0) {
        t.heads = static_cast<int>(r.heads.size());
        t.queries = static_cast<int>(r.q_tokens.size());
        t.keys = static_cast<int>(r.k_tokens.size());
        t.kvGroups = static_cast<int>(r.kv_group_count());
        t.weightsOnly = !r.has_scores;
    }
    const bool windowed =
        !r.heads.empty() && r.heads.front().mask.kind == attn::MaskKind::CausalWindow;
    t.windows.push_back(windowed ? static_cast<int>(r.heads.front().mask.window) : 0);
    for (std::size_t h = 0; h < r.heads.size(); ++h) {
        double top = 0;
        t.images.push_back(thumbnail(r, int(h), maxSide, &top));
        t.maxWeight.push_back(top);
        t.entropy.push_back(h < r.stats.size() ? r.stats[h].entropy : 0.0);
    }
}

}  // namespace model_grid
