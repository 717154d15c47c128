// AttnScope core — the "entropy" lens. GPL-3.0-or-later.
#include "attn/lenses/entropy.hpp"

#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::lenses {

std::vector<EntropyPoint> random_key_entropy(const std::vector<Index>& ns, Index d_k, Index trials,
                                             std::uint64_t seed, bool scale) {
    if (d_k < 1 || trials < 1) throw ArgumentError("random_key_entropy needs d_k, trials ≥ 1.");
    std::vector<EntropyPoint> out;
    const double factor = scale ? 1.0 / std::sqrt(static_cast<double>(d_k)) : 1.0;
    for (Index n : ns) {
        if (n < 1) throw ArgumentError("random_key_entropy: n must be ≥ 1.");
        Rng rng(derive_seed(seed, static_cast<std::uint64_t>(n)));
        EntropyPoint p;
        p.n = n;
        p.ceiling = std::log(static_cast<double>(n));
        for (Index t = 0; t < trials; ++t) {
            const MatrixD q = rng.normal_matrix(1, d_k).cast<double>();
            const MatrixD K = rng.normal_matrix(n, d_k).cast<double>();
            const VectorD s = (K * q.transpose()) * factor;
            p.entropy += entropy(softmax(s));
        }
        p.entropy /= static_cast<double>(trials);
        out.push_back(p);
    }
    return out;
}

SceneSpec scene_at_length(const SceneSpec& spec, Index n) {
    if (n < 1) throw ArgumentError("scene_at_length: n must be ≥ 1.");
    SceneSpec s = spec;
    const std::vector<std::string> base = spec.query_tokens();
    if (base.empty()) throw ArgumentError("The scene has no tokens to vary the length with.");
    s.tokens.clear();
    for (Index i = 0; i < n; ++i)
        s.tokens.push_back(base[static_cast<std::size_t>(i) % base.size()]);
    s.cross_text.clear();
    s.embeddings.reset();  // explicit embeddings have a fixed row count
    if (s.mask.kind == MaskKind::Custom) s.mask = MaskSpec{};
    if (!spec.mask.key_valid.empty()) {
        s.mask.key_valid.clear();
        for (Index i = 0; i < n; ++i)
            s.mask.key_valid.push_back(
                spec.mask.key_valid[static_cast<std::size_t>(i) % spec.mask.key_valid.size()]);
    }
    std::vector<Index> globals;
    for (Index g : spec.mask.global)
        if (g < n) globals.push_back(g);
    s.mask.global = globals;
    return s;
}

SceneEntropy scene_entropy(const SceneSpec& spec, const std::vector<Index>& ns,
                           Progress* progress) {
    if (spec.is_loaded())
        throw ArgumentError(
            "Loaded attention has a fixed length; entropy vs n needs a computed scene.");
    // A model reads its own sentence (scene_at_length's tokens do not reach it): every n would
    // draw the same run, a flat line that is no measurement.
    if (spec.is_model())
        throw ArgumentError(
            "A model runs its own sentence at its own length; entropy vs n needs the synthetic "
            "scene.");
    SceneEntropy out;
    for (std::size_t i = 0; i < ns.size(); ++i) {
        const SceneResult r = compute_scene(scene_at_length(spec, ns[i]));
        if (out.heads.empty()) out.heads.resize(r.heads.size());
        double ceiling = 0;
        Index rows = 0;
        for (std::size_t h = 0; h < r.heads.size(); ++h) {
            const Matrix& w = r.heads[h].weights;
            double sum = 0;
            Index used = 0;
            for (Index q = 0; q < w.rows(); ++q) {
                const VectorD row = w.row(q).transpose().cast<double>();
                const Index visible = (r.heads[h].masked_row(q).array() > -INFINITY).count();
                if (visible == 0) continue;
                sum += entropy(row);
                ++used;
                if (h == 0) {
                    ceiling += std::log(static_cast<double>(visible));
                    ++rows;
                }
            }
            out.heads[h].push_back(used ? sum / static_cast<double>(used) : 0.0);
        }
        out.ns.push_back(ns[i]);
        out.ceiling.push_back(rows ? ceiling / static_cast<double>(rows) : 0.0);
        report(progress, static_cast<double>(i + 1) / static_cast<double>(ns.size()));
    }
    return out;
}

}  // namespace attn::lenses
