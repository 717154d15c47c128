// AttnScope core — edits of a SceneSpec that keep it valid. GPL-3.0-or-later.
#include "attn/scene/spec_edit.hpp"

#include <algorithm>
#include <exception>

namespace attn {

std::vector<int> head_choices(Index d_model, int max_heads) {
    std::vector<int> out;
    for (int h = 1; h <= max_heads && h <= d_model; ++h)
        if (d_model % h == 0) out.push_back(h);
    return out;
}

SceneSpec with_d_model(SceneSpec spec, Index d_model) {
    spec.d_model = d_model;
    const std::vector<int> choices = head_choices(d_model, std::max<int>(16, int(spec.heads)));
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

SceneSpec without_run_state(SceneSpec spec) {
    spec.model_ids.clear();
    spec.model_layers.clear();
    spec.model_rotary = true;
    spec.model_softcap = true;
    spec.interventions = model::Interventions{};
    return spec;
}

int key_count(const SceneSpec& spec) {
    try {
        if (!spec.cross_text.empty()) return int(tokenize(spec.cross_text).size());
        return int(spec.query_tokens().size());
    } catch (const std::exception&) {
        return 0;  // text the tokenizer refuses has no keys; the caller shows the text's error
    }
}

int trailing_padding(const SceneSpec& spec) {
    if (spec.mask.kind != MaskKind::Padding) return 0;
    const auto& v = spec.mask.key_valid;
    int count = 0;
    for (auto it = v.rbegin(); it != v.rend() && !*it; ++it)
        ++count;
    return count;
}

SceneSpec with_padding(SceneSpec spec, int count) {
    const int n = key_count(spec);
    count = std::clamp(count, 0, n);
    spec.mask.key_valid.assign(std::size_t(n), true);
    for (int i = n - count; i < n; ++i)
        spec.mask.key_valid[std::size_t(i)] = false;
    return spec;
}

SceneSpec with_text(SceneSpec spec, const std::string& text) {
    const int padded = trailing_padding(spec);
    spec.text = text;
    spec.tokens.clear();
    spec.model_ids.clear();  // typed text is tokenized afresh
    // Explicit embeddings belong to the old tokens once the count differs.
    if (spec.embeddings && spec.embeddings->rows() != key_count(spec)) spec.embeddings.reset();
    if (spec.mask.kind == MaskKind::Padding) spec = with_padding(std::move(spec), padded);
    return spec;
}

}  // namespace attn
