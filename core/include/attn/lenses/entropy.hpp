// AttnScope core — the "entropy" lens: attention dilutes as the sequence grows.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/scene/scene.hpp"
#include "attn/util/progress.hpp"
#include "attn/util/types.hpp"

namespace attn::lenses {

/// Mean row entropy against its ceiling at one sequence length n.
struct EntropyPoint {
    Index n = 0;
    double entropy = 0;  ///< mean over rows (and trials) of −Σ α log α, nats
    double ceiling = 0;  ///< mean over rows of log(#visible keys); log n without a mask
};

/// Random unit-variance queries and keys at width d_k, n keys per row, scaled dot scores:
/// mean row entropy for each n (averaged over `trials` rows).
std::vector<EntropyPoint> random_key_entropy(const std::vector<Index>& ns, Index d_k, Index trials,
                                             std::uint64_t seed, bool scale = true);

/// Entropy of a scene's heads as its sequence length varies.
struct SceneEntropy {
    std::vector<Index> ns;
    std::vector<double> ceiling;             ///< per n (mean log #visible keys over rows)
    std::vector<std::vector<double>> heads;  ///< heads[h][i]: head h's mean row entropy at ns[i]
};

/// The scene at sequence length n: its query tokens cycled (t₀ … t_{m−1} t₀ t₁ …) or truncated
/// to n tokens, as self-attention (cross_text cleared, explicit embeddings dropped, a Custom
/// mask replaced by none, key_valid truncated/cycled with the tokens).
SceneSpec scene_at_length(const SceneSpec& spec, Index n);

/// Mean row entropy of every head of the scene at each n (computed with compute_scene on
/// scene_at_length). Throws ArgumentError for loaded attention and model runs (their n is
/// fixed).
SceneEntropy scene_entropy(const SceneSpec& spec, const std::vector<Index>& ns,
                           Progress* progress = nullptr);

}  // namespace attn::lenses
