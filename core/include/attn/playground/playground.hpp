// AttnScope core — the 2-D attention playground: its state, its computation, its presets.
// GPL-3.0-or-later.
//
// d_k = 2: queries and keys are points of a plane, values are points of another plane, so every
// output o_i = Σ_j α_ij v_j is a point that can be seen inside the convex hull of the values.
//
// "As if d_k = N". A dot product of two N-dimensional vectors with unit-variance entries has
// standard deviation √N, so a 2-D dot product understates how large real scores get. With N set,
// dot and general scores are multiplied by √(N/2) (the 2-D dot product is treated as a sample of an
// N-dimensional one) and scaling divides by √N instead of √2. With scaling on the two factors
// cancel to the 2-D case (1/√2); with scaling off the scores grow like √N and the softmax
// saturates towards one key — the failure the 1/√d_k factor exists to prevent. Additive and RBF
// scores do not grow with d in this way and are left as they are.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string_view>
#include <vector>

#include "attn/attention/attention.hpp"
#include "attn/attention/score.hpp"
#include "attn/util/types.hpp"

namespace attn {

/// Everything the playground shows; a plain struct (the session file serialises it).
struct PlaygroundState {
    std::vector<Eigen::Vector2d> queries;  ///< query points (query/key plane)
    std::vector<Eigen::Vector2d> keys;     ///< key points (query/key plane)
    std::vector<Eigen::Vector2d> values;   ///< value points (value plane), one per key
    std::vector<bool> masked;              ///< per key: hidden from every query (missing = false)
    ScoreKind score = ScoreKind::Dot;      ///< score function
    Eigen::Matrix2d W = Eigen::Matrix2d::Identity();   ///< general score qᵀ W k
    Eigen::Matrix2d Wa = Eigen::Matrix2d::Identity();  ///< additive: q W_a (row convention)
    Eigen::Matrix2d Ua = Eigen::Matrix2d::Identity();  ///< additive: k U_a
    Eigen::Vector2d va = Eigen::Vector2d(1.0, 1.0);    ///< additive: v_aᵀ tanh(…)
    double sigma = 1.0;                                ///< RBF bandwidth σ > 0
    bool scale = true;                                 ///< divide dot/general scores by √N
    int as_if_dk = 2;           ///< N in "as if d_k = N", 1…4096 (see file comment)
    double temperature = 1.0;   ///< τ; ≤ kHardTemperature gives the argmax limit
    bool hard_sample = false;   ///< also show a key sampled from Cat(α)
    std::uint64_t seed = 1;     ///< seed of the hard-attention sample
    int selected_query = 0;     ///< the query whose lines, bars and math are shown
    bool overlay = false;       ///< one plane for keys and values instead of two
    bool snap_to_grid = false;  ///< dragged points snap to multiples of grid_step
    double grid_step = 0.25;    ///< snapping step
    bool sorted_bars = false;   ///< weights bar chart sorted instead of in key order

    /// Whether key j is masked (false for indices past the end of `masked`).
    bool is_masked(std::size_t j) const { return j < masked.size() && masked[j]; }
};

/// Exact equality of every member (used for undo merging and tests).
bool operator==(const PlaygroundState& a, const PlaygroundState& b);

/// What the playground draws, computed by compute_playground.
struct PlaygroundResult {
    HeadResult head;        ///< every stage; head.raw are the scores after the √(N/2) factor
    Matrix raw2d;           ///< nq × nk plain 2-D scores s(q_i, k_j)
    double multiplier = 1;  ///< √(N/2) for dot/general, else 1
    std::vector<Eigen::Vector2d> outputs;      ///< o_i = Σ_j α_ij v_j (0 for an empty row)
    std::vector<int> hull;                     ///< indices of the values' hull vertices, CCW
    std::vector<Eigen::Vector2d> hull_points;  ///< the hull's vertices
    std::vector<bool> empty;                   ///< query i sees no key (all masked or no keys)
    std::vector<bool> inside;                  ///< o_i lies in the hull (false for empty rows)
    std::vector<Eigen::VectorXd> hull_coords;  ///< mean-value coordinates of o_i on hull_points
    std::vector<int> sampled;                  ///< key drawn from Cat(α_i) (−1 for empty rows)
};

/// Computes weights, outputs, hull and readouts with attn::attend_scores; throws ArgumentError
/// when keys and values differ in number or a parameter is out of range.
PlaygroundResult compute_playground(const PlaygroundState& state);

/// The score multiplier of "as if d_k = N": √(N/2) for dot/general scores, 1 otherwise.
double playground_multiplier(const PlaygroundState& state);

/// Index of a key drawn from the distribution `weights` with a uniform number u ∈ [0, 1);
/// −1 when the weights are all zero.
int sample_categorical(const Eigen::Ref<const Eigen::RowVectorXf>& weights, double u);

/// The uniform number in [0, 1) used for query i's hard-attention sample under `seed`.
double playground_uniform(std::uint64_t seed, std::size_t query);

/// Kernel-regression view of the state: keys' x coordinates as inputs, values' x coordinates as
/// outputs, ŷ(q) evaluated at each of `xs` for the RBF kernel (σ) and the exp-dot kernel
/// exp(c·q·k) with the plane's effective factor c (multiplier × scale ÷ τ); masked keys omitted.
struct RegressionCurves {
    VectorD xs, rbf, exp_dot;
    double exp_dot_factor = 1;  ///< c above
};

/// Samples both curves at `samples` points evenly spaced on [x0, x1] (samples ≥ 2).
RegressionCurves playground_regression(const PlaygroundState& state, double x0, double x1,
                                       int samples);

/// The presets of the playground.
enum class PlaygroundPreset { WorkedExample, TwoClusters, OneDominantKey, Saturation, HullCorners };

/// Every preset, in menu order.
std::vector<PlaygroundPreset> playground_presets();

/// The preset's display name ("Worked example", …).
std::string_view playground_preset_name(PlaygroundPreset preset);

/// A preset's state. WorkedExample encodes the 4-D example (q = k1 = [1,0,1,0], k2 = [0,1,0,1],
/// k3 = [1,0,0,0], values 10, 20, 30, d_k = 4) in 2-D: as_if_dk = 4, and q = k1 = 2^¼·(1,0),
/// k2 = 2^¼·(0,1), k3 = 2^−¾·(1,1), whose 2-D dot products with q (√2, 0, 1/√2) times √(4/2) are
/// the original ones (2, 0, 1); values (10,0), (20,0), (30,0). Weights (0.5065, 0.1863, 0.3072),
/// output (18.007, 0).
PlaygroundState playground_preset(PlaygroundPreset preset);

}  // namespace attn
