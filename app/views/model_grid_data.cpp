// AttnScope — the numbers behind the model view: every layer's heads as thumbnails.
// GPL-3.0-or-later.
#include "views/model_grid_data.hpp"

#include "attn/scene_layers.hpp"

#include <QFileInfo>
#include <algorithm>
#include <array>
#include <cmath>

namespace model_grid {
namespace {

// Viridis sampled at 17 evenly spaced points (matplotlib's table); linear in between is
// indistinguishable from the 256-entry table at thumbnail size.
constexpr std::array<std::array<unsigned char, 3>, 17> kViridis{{
    {68, 1, 84},
    {72, 26, 108},
    {71, 47, 125},
    {65, 68, 135},
    {59, 82, 139},
    {51, 99, 141},
    {44, 114, 142},
    {38, 130, 142},
    {33, 145, 140},
    {31, 160, 136},
    {40, 174, 128},
    {63, 188, 115},
    {94, 201, 98},
    {132, 212, 75},
    {173, 220, 48},
    {216, 226, 25},
    {253, 231, 37},
}};

constexpr QRgb kMaskedColour = qRgb(200, 200, 200);

/// Half-open cell range [begin, end) of output bin b when n cells are pooled into bins.
std::pair<int, int> binRange(int b, int bins, int n) {
    const auto begin = static_cast<int>(static_cast<long long>(b) * n / bins);
    const auto end = static_cast<int>(static_cast<long long>(b + 1) * n / bins);
    return {begin, std::max(end, begin + 1)};
}

/// visible: the scene's allowed pairs when the head keeps no masked scores (may be empty).
QImage thumbnail(const attn::HeadResult& head, const attn::BoolMatrix& visible, int maxSide,
                 double* maxWeight) {
    const attn::Matrix& w = head.weights;
    const int rows = static_cast<int>(w.rows()), cols = static_cast<int>(w.cols());
    const int outRows = std::min(rows, maxSide), outCols = std::min(cols, maxSide);
    const float top = std::max(w.size() ? w.maxCoeff() : 0.f, 1e-12f);
    *maxWeight = top;
    const bool hasMask = head.masked.rows() == w.rows() && head.masked.cols() == w.cols();
    const bool hasVisible = !hasMask && visible.rows() == w.rows() && visible.cols() == w.cols();
    QImage image(outCols, outRows, QImage::Format_RGB32);
    for (int r = 0; r < outRows; ++r) {
        const auto [r0, r1] = binRange(r, outRows, rows);
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
        for (int c = 0; c < outCols; ++c) {
            const auto [c0, c1] = binRange(c, outCols, cols);
            float best = -1.f;
            bool allMasked = hasMask || hasVisible;
            for (int i = r0; i < r1; ++i) {
                for (int j = c0; j < c1; ++j) {
                    best = std::max(best, w(i, j));
                    if (allMasked && (hasMask ? !std::isinf(head.masked(i, j)) : visible(i, j)))
                        allMasked = false;
                }
            }
            line[c] = allMasked ? kMaskedColour : viridis(best / top);
        }
    }
    return image;
}

}  // namespace

QRgb viridis(double t) {
    if (!(t > 0)) t = 0;  // also maps NaN to the bottom colour
    if (t > 1) t = 1;
    const double x = t * (kViridis.size() - 1);
    const auto i = std::min(static_cast<std::size_t>(x), kViridis.size() - 2);
    const double f = x - static_cast<double>(i);
    auto mix = [&](int ch) {
        return static_cast<int>(std::lround(kViridis[i][ch] * (1 - f) + kViridis[i + 1][ch] * f));
    };
    return qRgb(mix(0), mix(1), mix(2));
}

int layerCount(const attn::SceneSpec& spec) {
    return static_cast<int>(attn::layer_count(spec));
}

void forEachLayer(const attn::SceneSpec& spec,
                  const std::function<void(int, const attn::SceneResult&)>& sink,
                  attn::Progress* progress, bool keepStages) {
    attn::for_each_layer(
        spec, [&](attn::Index l, const attn::SceneResult& r) { sink(static_cast<int>(l), r); },
        progress, keepStages);
}

Thumbnails computeThumbnails(const attn::SceneSpec& spec, int maxSide, attn::Progress* progress) {
    Thumbnails t;
    t.layers = layerCount(spec);
    if (spec.data) {
        const auto& comps = spec.data->components;
        const QString file = QFileInfo(QString::fromStdString(spec.data->source)).fileName();
        const auto c = static_cast<std::size_t>(spec.component);
        const QString comp = c < comps.size() ? QString::fromStdString(comps[c].name) : QString();
        t.title = comp.isEmpty() ? file : file + QStringLiteral(" — ") + comp;
    } else {
        t.title = QString::fromStdString(spec.text);
    }
    forEachLayer(
        spec,
        [&](int, const attn::SceneResult& r) {
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
        progress, false);  // thumbnails need weights and the mask only
    return t;
}

}  // namespace model_grid
