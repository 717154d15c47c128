// AttnScope — reuses the seeded inputs of a scene between computations. GPL-3.0-or-later.
#pragma once

#include <memory>
#include <mutex>

#include "attn/scene/scene.hpp"

/// Dragging a temperature or mask control recomputes a scene whose seeded projection weights
/// and token embeddings did not change, and generating them (millions of random numbers at
/// d_model 768) costs more than the attention itself. This cache fills SceneSpec::weights and
/// SceneSpec::embeddings with exactly what compute_scene would generate, so results are
/// bit-identical and only the generation is skipped. Thread-safe.
class InputCache {
  public:
    /// spec with generated inputs made explicit (unchanged when it has data or explicit inputs).
    attn::SceneSpec prepare(const attn::SceneSpec& spec);

  private:
    struct WeightsKey {
        attn::Index d_model = 0, heads = 0, kv_heads = 0;
        attn::ScoreKind score = attn::ScoreKind::Dot;
        std::uint64_t seed = 0;
        float sigma = 0;
        bool operator==(const WeightsKey&) const = default;
    };
    struct EmbeddingsKey {
        std::vector<std::string> tokens;
        attn::Index d_model = 0;
        std::uint64_t seed = 0;
        attn::PositionalKind positional = attn::PositionalKind::None;  ///< baked in
        bool operator==(const EmbeddingsKey&) const = default;
    };
    std::mutex mutex_;
    WeightsKey weightsKey_;
    std::shared_ptr<const attn::MultiHeadWeights> weights_;
    EmbeddingsKey embeddingsKey_;
    std::shared_ptr<const attn::Matrix> embeddings_;
};
