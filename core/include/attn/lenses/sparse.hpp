// AttnScope core — sparse attention patterns against exact attention. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// BigBird-style pattern: |i − j| ≤ window, global tokens (rows and columns all visible) and
/// `random_keys` seeded random keys per query; n × n, true = visible.
BoolMatrix bigbird_mask(Index n, Index window, const std::vector<Index>& globals, Index random_keys,
                        std::uint64_t seed);

/// Settings shared by the three sparse patterns.
struct SparseConfig {
    Index window = 2;               ///< radius w of the band
    std::vector<Index> globals{0};  ///< global token indices (global+window and BigBird)
    Index random_keys = 2;          ///< BigBird: random keys per query
    std::uint64_t seed = 1;
};

/// One sparse approximation of exact attention.
struct SparseResult {
    std::string name;  ///< "window", "global+window", "bigbird"
    BoolMatrix mask;
    double density = 0;  ///< visible pairs / n²
    double error = 0;    ///< ‖O − O_exact‖_F / ‖O_exact‖_F
    /// ‖O − O_exact‖_F / ‖V‖_F: the error on the values' scale, meaningful also when diffuse
    /// attention makes O_exact (an average of many values) nearly zero.
    double value_error = 0;
    MatrixD weights;  ///< its attention weights
};

/// Sliding-window, global+window and BigBird masks applied to self-attention Q, K, V (n rows
/// each, scaled dot), each compared with the exact dense output.
std::vector<SparseResult> compare_sparse(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                                         const SparseConfig& config);

}  // namespace attn::lenses

namespace attn::lenses {

/// Seeded self-attention inputs with tunable locality.
struct QkvSample {
    MatrixD Q, K, V;
};

/// n tokens of width d (d ≥ 4): Q and K hold N(0, content²) entries in the first d/2 columns
/// and, in the other d/2, sinusoids of the position scaled so that the positional part of the
/// scaled score q·k/√d is locality·mean_f cos(ω_f (i − j)): near tokens score higher, as the
/// sparse patterns assume. V is N(0, 1).
QkvSample local_qkv(Index n, Index d, double locality, double content, std::uint64_t seed);

}  // namespace attn::lenses
