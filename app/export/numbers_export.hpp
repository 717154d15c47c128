// AttnScope — the numbers behind a view as .npy or .csv. GPL-3.0-or-later.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/scene/scene.hpp"

class QIODevice;

namespace exporting {

/// Attention weights with their labels: shape [L, H, Nq, Nk], C order.
struct Numbers {
    std::vector<std::uint64_t> shape;  ///< always 4 axes (L = 1 for one layer)
    std::vector<float> values;
    std::vector<std::string> qTokens, kTokens;
    std::vector<int> layerIndex;  ///< the file's layer number of each L entry
    std::vector<int> headIndex;   ///< the head number of each H entry (empty: 0 … H−1)
};

/// The weights of one result (the heatmap grid's numbers): [1, H, Nq, Nk].
Numbers numbersOf(const attn::SceneResult& result);
/// The weights of one head (the heatmap grid with a focused head): [1, 1, Nq, Nk], written
/// as [Nq, Nk] to .npy; the CSV names the head.
Numbers numbersOfHead(const attn::SceneResult& result, int head);

/// The header line of weights CSV files.
inline constexpr char kWeightsCsvHeader[] =
    "layer_from_0,head_from_0,query,query_token,key,key_token,weight\n";
/// A CSV field: quoted when it holds commas, quotes or line breaks (RFC 4180).
QByteArray csvField(const std::string& text);
/// Appends the CSV rows of one head's Nq × Nk weights (row-major) to out.
void writeWeightsCsv(QIODevice& out, int layer, int head, const float* weights,
                     const std::vector<std::string>& qTokens,
                     const std::vector<std::string>& kTokens);

/// Writes numbers as .npy (float32; one layer is [H, Nq, Nk], one focused head [Nq, Nk])
/// through core's writer, or as .csv in long form with a header
/// `layer_from_0,head_from_0,query,query_token,key,key_token,weight` (easy to load in pandas or R).
/// The format comes from the extension. Returns an empty string or the error.
QString writeNumbers(const Numbers& numbers, const QString& path);

/// One series a view draws. Curves, bars and points are (x, y) pairs; a colour map is a matrix
/// whose value z sits at column x, row y (z is empty for everything but colour maps).
struct Series {
    QString plot;  ///< the title of the plot it is drawn on
    QString name;  ///< its legend name (a colour map: its colour scale's label)
    std::vector<double> x, y, z;
    QStringList xLabels, yLabels;  ///< the axis text at each x / y (tokens, categories) or empty
};

/// The numbers behind a plot-based view (a lens, the playground): every series it draws.
struct PlotNumbers {
    std::vector<Series> series;
};

/// Writes plot numbers as .csv in long form, one row per point or cell, with the header
/// `series_index,plot,series,x,y,z,x_label,y_label` (z and the labels empty when they do not
/// apply; shortest decimals that read back to the same double), or as .npy: a float32 array
/// [N, 4] of the same rows' (series_index, x, y, z), z NaN for curves, bars and points.
/// The format comes from the extension. Returns an empty string or the error.
QString writePlotNumbers(const PlotNumbers& numbers, const QString& path);

}  // namespace exporting
