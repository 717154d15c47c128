// AttnScope core — sparse attention patterns against exact attention. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/types.hpp"

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
    MatrixD weights;     ///< its attention weights
};

/// Sliding-window, global+window and BigBird masks applied to self-attention Q, K, V (n rows
/// each, scaled dot), each compared with the exact dense output.
std::vector<SparseResult> compare_sparse(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                                         const SparseConfig& config);

}  // namespace attn::lenses
