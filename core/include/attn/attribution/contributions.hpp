// AttnScope core — what each token contributes through one attention block, from a run's own
// numbers: norm-based attribution (Kobayashi et al. 2020) and ALTI (Ferrando et al. 2022).
// Written once against the model interface and its hooks, for every family. GPL-3.0-or-later.
// The definitions are in docs/attribution.md.
#pragma once

#include <vector>

#include "attn/models/model.hpp"
#include "attn/models/run.hpp"
#include "attn/util/progress.hpp"

namespace attn::attrib {

/// Layer L's attention block of a run as sums over tokens: y_i = Σ_h Σ_j α^h_ij f^h(x_j) + b_O.
struct BlockParts {
    /// Per head, the weights as the run used them (n × n): knockouts applied; an ablated head's
    /// zero (zero ablation) or every row the column means (mean ablation: z̄ = Σ_j ᾱ_j v_j).
    std::vector<Matrix> alpha;
    /// Per head, f^h(x_j) = v^h_j · W_O^h (the value with its bias, through the head's rows of
    /// the output projection), n × d_model.
    std::vector<Matrix> f;
    Vector bias;  ///< b_O, the output projection's bias (d_model)
};

/// The parts of layer L of RUN (a run of MODEL, every position: no reused prefix).
BlockParts block_parts(const model::Model& model, const model::Run& run, int l);

/// Norm-based attribution, [L·H] matrices n × n (index l·H + h): ‖α^h_ij · f^h(x_j)‖₂.
std::vector<Matrix> norm_based(const model::Model& model, const model::Run& run,
                               Progress* progress = nullptr);

/// ALTI's decomposition of the attention block's output at row I of layer L:
/// y_i = Σ_j terms.row(j) + constant. Pre-norm families: y_i = x_i + attention output,
/// T_i(x_j) = δ_ij x_i + Σ_h α^h_ij f^h(x_j), constant b_O. Post-norm families (BERT): y_i the
/// block's LayerNorm of that sum with its scale σ_i frozen, each term centred by its own mean
/// and scaled (gain / σ_i), the constant the centred, scaled b_O plus the norm's bias.
struct AltiTerms {
    MatrixD terms;     ///< n × d_model: T_i(x_j) for every j
    VectorD constant;  ///< d_model
};

/// The terms of row I of layer L (PARTS = block_parts(model, run, l)).
AltiTerms alti_terms(const model::Model& model, const model::Run& run, const BlockParts& parts,
                     int l, Index i);

/// ALTI's contributions, L matrices n × n: c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁), each row
/// normalised to sum 1 (a row of zeros stays zero).
std::vector<MatrixD> alti(const model::Model& model, const model::Run& run,
                          Progress* progress = nullptr);

/// C_{L−1} ⋯ C_0 of per-layer contribution matrices (n × n).
MatrixD compose_layers(const std::vector<MatrixD>& layers);

}  // namespace attn::attrib
