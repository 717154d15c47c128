// AttnScope core — the "alignment" lens. GPL-3.0-or-later.
#include "attn/lenses/alignment.hpp"

#include "attn/error.hpp"

namespace attn::lenses {

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
    const SceneResult r = compute_scene(s);
    if (r.heads.empty()) throw ArgumentError("cross_alignment: the scene computed no head.");
    if (head >= static_cast<Index>(r.heads.size()))
        throw ArgumentError("cross_alignment: no such head.");
    Alignment a;
    a.kind = kind;
    a.target = r.q_tokens;
    a.source = r.k_tokens;
    if (head >= 0) {
        a.weights = r.heads[static_cast<std::size_t>(head)].weights;
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

}  // namespace attn::lenses
