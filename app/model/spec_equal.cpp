// AttnScope — exact comparison of scene specs. GPL-3.0-or-later.
#include "model/spec_equal.hpp"

namespace {

bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.size() == 0 || a == b);
}

bool sameVector(const attn::Vector& a, const attn::Vector& b) {
    return a.size() == b.size() && (a.size() == 0 || a == b);
}

bool sameMask(const attn::MaskSpec& a, const attn::MaskSpec& b) {
    return a.kind == b.kind && a.window == b.window && a.global == b.global &&
           a.key_valid == b.key_valid && a.custom.rows() == b.custom.rows() &&
           a.custom.cols() == b.custom.cols() && (a.custom.size() == 0 || a.custom == b.custom);
}

bool sameScore(const attn::ScoreParams& a, const attn::ScoreParams& b) {
    return a.kind == b.kind && sameMatrix(a.W, b.W) && sameMatrix(a.Wa, b.Wa) &&
           sameMatrix(a.Ua, b.Ua) && sameVector(a.va, b.va) && a.sigma == b.sigma;
}

bool sameWeights(const attn::MultiHeadWeights& a, const attn::MultiHeadWeights& b) {
    if (!sameMatrix(a.Wq, b.Wq) || !sameMatrix(a.Wk, b.Wk) || !sameMatrix(a.Wv, b.Wv) ||
        !sameMatrix(a.Wo, b.Wo) || a.head_scores.size() != b.head_scores.size())
        return false;
    for (std::size_t i = 0; i < a.head_scores.size(); ++i)
        if (!sameScore(a.head_scores[i], b.head_scores[i])) return false;
    return true;
}

}  // namespace

bool specsEqual(const attn::SceneSpec& a, const attn::SceneSpec& b) {
    if (a.text != b.text || a.tokens != b.tokens || a.cross_text != b.cross_text ||
        a.d_model != b.d_model || a.heads != b.heads || a.kv_heads != b.kv_heads ||
        a.score != b.score || a.sigma != b.sigma || a.scale != b.scale ||
        a.temperature != b.temperature || !sameMask(a.mask, b.mask) ||
        a.positional != b.positional || a.seed != b.seed || a.data != b.data ||
        a.component != b.component || a.layer != b.layer || a.data_dk != b.data_dk)
        return false;
    if (a.embeddings.has_value() != b.embeddings.has_value()) return false;
    if (a.embeddings && !sameMatrix(*a.embeddings, *b.embeddings)) return false;
    if (a.weights.has_value() != b.weights.has_value()) return false;
    if (a.weights && !sameWeights(*a.weights, *b.weights)) return false;
    return true;
}
