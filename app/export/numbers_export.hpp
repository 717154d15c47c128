// AttnScope — the numbers behind a view as .npy or .csv. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/scene.hpp"

namespace exporting {

/// Attention weights with their labels: shape [L, H, Nq, Nk], C order.
struct Numbers {
    std::vector<std::uint64_t> shape;  ///< always 4 axes (L = 1 for one layer)
    std::vector<float> values;
    std::vector<std::string> qTokens, kTokens;
    std::vector<int> layerIndex;  ///< the file's layer number of each L entry
};

/// The weights of one result (the heatmap grid's numbers): [1, H, Nq, Nk].
Numbers numbersOf(const attn::SceneResult& result);
/// The weights of every layer of spec (the model view's numbers): [L, H, Nq, Nk].
Numbers numbersOfAllLayers(const attn::SceneSpec& spec);

/// Writes numbers as .npy (float32; leading axes of size 1 dropped, so one layer is
/// [H, Nq, Nk]) through core's writer, or as .csv in long form with a header
/// `layer,head,query,query_token,key,key_token,weight` (easy to load in pandas or R).
/// The format comes from the extension. Returns an empty string or the error.
QString writeNumbers(const Numbers& numbers, const QString& path);

}  // namespace exporting
