// AttnScope — edits of a SceneSpec that keep it valid. GPL-3.0-or-later.
#include "model/spec_edit.hpp"

#include <algorithm>

std::vector<int> headChoices(attn::Index d_model, int maxHeads) {
    std::vector<int> out;
    for (int h = 1; h <= maxHeads && h <= d_model; ++h)
        if (d_model % h == 0) out.push_back(h);
    return out;
}

attn::SceneSpec withDModel(attn::SceneSpec spec, attn::Index d_model) {
    spec.d_model = d_model;
    const std::vector<int> choices = headChoices(d_model, std::max<int>(16, int(spec.heads)));
    int best = 1;
    for (int h : choices)
        if (h <= spec.heads) best = h;
    spec.heads = best;
    if (spec.kv_heads > 0 && spec.heads % spec.kv_heads != 0) spec.kv_heads = 0;
    // Explicit matrices of the old width no longer fit.
    if (spec.embeddings && spec.embeddings->cols() != d_model) spec.embeddings.reset();
    if (spec.weights && spec.weights->Wq.rows() != d_model) spec.weights.reset();
    return spec;
}

int keyCount(const attn::SceneSpec& spec) {
    try {
        if (!spec.cross_text.empty()) return int(attn::tokenize(spec.cross_text).size());
        return int(spec.query_tokens().size());
    } catch (const std::exception&) {
        return 0;
    }
}

int trailingPadding(const attn::SceneSpec& spec) {
    if (spec.mask.kind != attn::MaskKind::Padding) return 0;
    const auto& v = spec.mask.key_valid;
    int count = 0;
    for (auto it = v.rbegin(); it != v.rend() && !*it; ++it)
        ++count;
    return count;
}

attn::SceneSpec withPadding(attn::SceneSpec spec, int count) {
    const int n = keyCount(spec);
    count = std::clamp(count, 0, n);
    spec.mask.key_valid.assign(std::size_t(n), true);
    for (int i = n - count; i < n; ++i)
        spec.mask.key_valid[std::size_t(i)] = false;
    return spec;
}

attn::SceneSpec withText(attn::SceneSpec spec, const std::string& text) {
    const int padded = trailingPadding(spec);
    spec.text = text;
    spec.tokens.clear();
    // Explicit embeddings belong to the old tokens once the count differs.
    if (spec.embeddings && spec.embeddings->rows() != keyCount(spec)) spec.embeddings.reset();
    if (spec.mask.kind == attn::MaskKind::Padding) spec = withPadding(std::move(spec), padded);
    return spec;
}
