// AttnScope core — the "alignment" lens. GPL-3.0-or-later.
#include "attn/lenses/alignment.hpp"

#include <algorithm>
#include <cctype>

#include "attn/util/error.hpp"

namespace attn::lenses {
namespace {

/// The alignment of a computed cross-attention result: one head's weights, their mean or their
/// maximum.
Alignment alignment_of(const SceneResult& r, ScoreKind kind, Index head) {
    if (r.heads.empty()) throw ArgumentError("cross_alignment: the scene computed no head.");
    if (head >= static_cast<Index>(r.heads.size()))
        throw ArgumentError("cross_alignment: no such head.");
    Alignment a;
    a.kind = kind;
    a.target = r.q_tokens;
    a.source = r.k_tokens;
    if (head >= 0) {
        a.weights = r.heads[static_cast<std::size_t>(head)].weights;
    } else if (head == kMaxOfHeads) {
        a.weights = r.heads[0].weights;
        for (const HeadResult& h : r.heads)
            a.weights = a.weights.cwiseMax(h.weights);
    } else {
        a.weights = Matrix::Zero(r.heads[0].weights.rows(), r.heads[0].weights.cols());
        for (const HeadResult& h : r.heads)
            a.weights += h.weights;
        a.weights /= static_cast<float>(r.heads.size());
    }
    for (Index i = 0; i < a.weights.rows(); ++i) {
        Index j = 0;
        a.weights.row(i).maxCoeff(&j);
        a.argmax.push_back(j);
    }
    return a;
}

}  // namespace

Index cross_component(const SceneSpec& spec) {
    if (!spec.is_loaded()) return -1;
    const auto& comps = spec.data->components;
    for (std::size_t c = 0; c < comps.size(); ++c) {
        std::string name = comps[c].name;
        for (char& ch : name)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (name == "cross") return static_cast<Index>(c);
    }
    for (std::size_t c = 0; c < comps.size(); ++c)
        if (comps[c].q_tokens != comps[c].k_tokens) return static_cast<Index>(c);
    return -1;
}

Alignment loaded_alignment(const SceneSpec& spec, Index component, Index head) {
    if (!spec.is_loaded() || component < 0 ||
        component >= static_cast<Index>(spec.data->components.size()))
        throw ArgumentError("loaded_alignment: the scene has no such loaded component.");
    SceneSpec s = spec;
    s.component = component;
    s.layer = std::min(spec.layer, spec.data->components[std::size_t(component)].layers - 1);
    return alignment_of(compute_scene(s), ScoreKind::Dot, head);
}

Alignment cross_alignment(const SceneSpec& base, const std::string& source,
                          const std::string& target, ScoreKind kind, Index head) {
    SceneSpec s = base;
    s.text = target;
    s.tokens.clear();
    s.cross_text = source;
    s.score = kind;
    s.mask = MaskSpec{};
    s.embeddings.reset();
    s.data.reset();
    s.weights.reset();  // explicit weights may belong to another score kind
    return alignment_of(compute_scene(s), kind, head);
}

}  // namespace attn::lenses
