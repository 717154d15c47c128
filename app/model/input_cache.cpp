// AttnScope — reuses the seeded inputs of a scene between computations. GPL-3.0-or-later.
#include "model/input_cache.hpp"

#include "attn/random.hpp"

attn::SceneSpec InputCache::prepare(const attn::SceneSpec& spec) {
    if (spec.data) return spec;
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
                // The same call, with the same derived seed, as compute_scene makes.
                w = std::make_shared<const attn::MultiHeadWeights>(attn::MultiHeadWeights::xavier(
                    config, spec.score, attn::derive_seed(spec.seed, 7), spec.sigma));
                std::lock_guard lock(mutex_);
                weightsKey_ = key;
                weights_ = w;
            }
            out.weights = *w;
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
                // compute_scene adds the positional encoding to explicit embeddings itself.
                attn::Matrix x = attn::hashed_embeddings(key.tokens, spec.d_model, spec.seed);
                x += attn::positional_encoding(key.positional, x.rows(), spec.d_model, spec.seed);
                e = std::make_shared<const attn::Matrix>(std::move(x));
                std::lock_guard lock(mutex_);
                embeddingsKey_ = std::move(key);
                embeddings_ = e;
            }
            out.embeddings = *e;
            if (bake) out.positional = attn::PositionalKind::None;
        }
    } catch (const std::exception&) {
        return spec;  // invalid specs go to compute_scene unchanged, for its error message
    }
    return out;
}
