// AttnScope core — rotary positions (RoPE) with their reverse: the inverse frequencies with
// transformers' rope-scaling types, full or partial rotation (the first rotary_dim components
// of each head), rotate_half's pairing. GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "attn/blocks/tensor.hpp"

namespace attn::blocks {

/// How rotary positions stretch to longer contexts (config.json's rope_scaling).
enum class RopeScaling {
    None,    ///< absent, null or "default"
    Linear,  ///< every frequency divided by factor
    Llama3,  ///< Llama 3.1's: low frequencies divided by factor, a smooth band between
    /// Phi-3's: each frequency divided by its short factor in a run of up to
    /// original_max_positions positions, by its long factor in a longer one
    LongRope,
};

/// What a family's config says of its rotary positions.
struct RopeSpec {
    int rotary_dim = 0;  ///< components rotated per head (even; = head_dim for full rotation)
    double theta = 10000.0;
    RopeScaling scaling = RopeScaling::None;
    double factor = 1.0, low_freq_factor = 1.0, high_freq_factor = 4.0;
    double original_max_positions = 8192.0;
    /// Per-frequency divisors (a GGUF file's rope_freqs: Llama 3.1's scaling precomputed by
    /// llama.cpp's converter); empty: none.
    std::vector<double> freq_factors;
    /// LongRope's per-frequency divisors (rotary_dim / 2 each).
    std::vector<double> short_factors, long_factors;
    /// What cos and sin are multiplied by (LongRope's attention factor; 1 otherwise).
    double attention_factor = 1.0;
};

/// The inverse frequencies θ_i = theta^(−2i / rotary_dim), rotary_dim / 2 of them, scaled.
std::vector<double> rope_frequencies(const RopeSpec& spec);

/// The inverse frequencies of a run of LENGTH positions: LongRope's long factors when LENGTH
/// exceeds original_max_positions (every position of the run then uses them), else as above.
std::vector<double> rope_frequencies(const RopeSpec& spec, Index length);

/// cos and sin of each position's angles (rows: positions FIRST…, columns: rotary_dim / 2).
template <class S>
struct RopeTable {
    Mat<S> cos, sin;
};

/// The table of INV_FREQ for ROWS positions from FIRST, cos and sin times SCALE.
template <class S>
RopeTable<S> rope_table(const std::vector<double>& inv_freq, Index first, Index rows,
                        double scale = 1.0) {
    RopeTable<S> t{Mat<S>(rows, Index(inv_freq.size())), Mat<S>(rows, Index(inv_freq.size()))};
    for (Index r = 0; r < rows; ++r)
        for (std::size_t i = 0; i < inv_freq.size(); ++i) {
            const double a = double(first + r) * inv_freq[i];
            t.cos(r, Index(i)) = S(std::cos(a) * scale);
            t.sin(r, Index(i)) = S(std::sin(a) * scale);
        }
    return t;
}

/// Rotates X (rows × head_dim) in place by TABLE in transformers' rotate_half convention:
/// component i pairs with i + rotary_dim / 2 (not with its neighbour, as interleaved RoPE
/// would); components from rotary_dim on pass unrotated (partial rotary).
template <class S>
void rotate_half(Mat<S>& x, const RopeTable<S>& t) {
    const Index half = t.cos.cols();
    const Mat<S> a = x.leftCols(half), b = x.middleCols(half, half);
    x.leftCols(half) = (a.array() * t.cos.array() - b.array() * t.sin.array()).matrix();
    x.middleCols(half, half) = (b.array() * t.cos.array() + a.array() * t.sin.array()).matrix();
}

/// rotate_half's vector–Jacobian product: DY rotated back (each angle negated), in place.
template <class S>
void rotate_half_vjp(Mat<S>& dy, const RopeTable<S>& t) {
    const Index half = t.cos.cols();
    const Mat<S> a = dy.leftCols(half), b = dy.middleCols(half, half);
    dy.leftCols(half) = (a.array() * t.cos.array() + b.array() * t.sin.array()).matrix();
    dy.middleCols(half, half) = (b.array() * t.cos.array() - a.array() * t.sin.array()).matrix();
}

}  // namespace attn::blocks
