// AttnScope — reuses the seeded inputs of a scene between computations. GPL-3.0-or-later.
#include "model/input_cache.hpp"

attn::SceneSpec InputCache::prepare(const attn::SceneSpec& spec) {
    if (!spec.is_synthetic()) return spec;  // nothing seeded: the file's or model's own
    attn::SceneSpec out = spec;
    try {
        const attn::MultiHeadConfig config{spec.d_model, spec.heads, spec.kv_heads};
        config.validate();
        if (!spec.weights) {
            const WeightsKey key{spec.d_model, spec.heads, spec.kv_heads,
                                 spec.score,   spec.seed,  spec.sigma};
            std::shared_ptr<const attn::MultiHeadWeights> w;
            {
                std::lock_guard lock(mutex_);
                if (weights_ && weightsKey_ == key) w = weights_;
            }
            if (!w) {
                // Core's own rule: exactly the weights compute_scene would generate.
                w = std::make_shared<const attn::MultiHeadWeights>(attn::seeded_weights(spec));
                std::lock_guard lock(mutex_);
                weightsKey_ = key;
                weights_ = w;
            }
            out.weights = std::move(w);  // shared: no copy
        }
        if (!spec.embeddings) {
            // Self-attention: the positional encoding (n · d sines for long texts) is cached with
            // the embeddings and the spec asks for none on top. Cross-attention keys need it
            // from compute_scene, so there it stays in the spec.
            const bool bake = spec.cross_text.empty();
            EmbeddingsKey key{spec.query_tokens(), spec.d_model, spec.seed,
                              bake ? spec.positional : attn::PositionalKind::None};
            if (key.tokens.empty()) return out;  // compute_scene reports the empty text
            std::shared_ptr<const attn::Matrix> e;
            {
                std::lock_guard lock(mutex_);
                if (embeddings_ && embeddingsKey_ == key) e = embeddings_;
            }
            if (!e) {
                // Core's own rule, with the positions baked in (or none for cross-attention:
                // compute_scene adds them to explicit embeddings itself).
                attn::SceneSpec bakeSpec = spec;
                bakeSpec.positional = key.positional;
                e = std::make_shared<const attn::Matrix>(
                    attn::seeded_embeddings(key.tokens, bakeSpec));
                std::lock_guard lock(mutex_);
                embeddingsKey_ = std::move(key);
                embeddings_ = e;
            }
            out.embeddings = std::move(e);
            if (bake) out.positional = attn::PositionalKind::None;
        }
    } catch (const std::exception&) {
        return spec;  // invalid specs go to compute_scene unchanged, for its error message
    }
    return out;
}
