// AttnScope core — encoder–decoder attention over kept keys and values. GPL-3.0-or-later.
#include "seq2seq_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/util/error.hpp"

namespace attn::model {

KeyValues project_keys(const AttentionProjections& p, const Matrix& x, int heads, int head_dim) {
    const Matrix k = p.k(x), v = p.v(x);
    KeyValues kv;
    for (int h = 0; h < heads; ++h) {
        kv.k.push_back(k.middleCols(Index(h) * head_dim, head_dim));
        kv.v.push_back(v.middleCols(Index(h) * head_dim, head_dim));
    }
    return kv;
}

Matrix attend_keys(const AttentionProjections& p, const Matrix& x, const KeyValues& kv, int heads,
                   int head_dim, const HeadStep& step, const std::vector<Matrix>* bias, bool causal,
                   Index first, std::vector<Matrix>* weights) {
    const Matrix q = p.q(x);
    const Index rows = x.rows();
    Matrix z(rows, Index(heads) * head_dim);
    for (int h = 0; h < heads; ++h) {
        const Matrix& k = kv.k[std::size_t(h)];
        Matrix s = (q.middleCols(Index(h) * head_dim, head_dim) * k.transpose()) * step.multiplier;
        if (bias) s += (*bias)[std::size_t(h)];
        for (Index i = 0; i < rows; ++i) {
            // A query sees keys up to its own position (first + i) when causal.
            const Index seen = causal ? std::min(k.rows(), first + i + 1) : k.rows();
            auto row = s.row(i);
            const float top = row.head(seen).maxCoeff();
            if (!std::isfinite(top))
                throw NonFiniteError("attention scores are not finite (a weight overflows)");
            row.head(seen) = (row.head(seen).array() - top).exp().matrix();
            row.head(seen) /= row.head(seen).sum();
            row.tail(k.rows() - seen).setZero();
        }
        // The hooks change weights (knockout) and outputs (mean ablation, patching) as a
        // decoder-only run's do (model::attend_head): the weights shown are those the run used.
        if (step.hooks) step.hooks->pattern(step.layer, h, s);
        // An ablated head's weights are shown; its output reaches nothing (zero ablation).
        auto zh = z.middleCols(Index(h) * head_dim, head_dim);
        if (!step.ablated.empty() && step.ablated[std::size_t(h)])
            zh.setZero();
        else
            zh = s * kv.v[std::size_t(h)];
        if (step.hooks) {
            Matrix own = zh;
            step.hooks->z(step.layer, h, first, own);
            zh = own;
        }
        if (weights) weights->push_back(std::move(s));
    }
    return p.o(z);
}

Matrix self_attend(const AttentionProjections& p, const Matrix& x, KeyValues& kv, int heads,
                   int head_dim, const HeadStep& step, const std::vector<Matrix>* bias, bool causal,
                   Index first, std::vector<Matrix>* weights) {
    KeyValues added = project_keys(p, x, heads, head_dim);
    if (kv.k.empty()) {
        kv = std::move(added);
    } else {
        for (int h = 0; h < heads; ++h) {
            Matrix& k = kv.k[std::size_t(h)];
            Matrix& v = kv.v[std::size_t(h)];
            const Index old = k.rows();
            k.conservativeResize(old + x.rows(), Eigen::NoChange);
            v.conservativeResize(old + x.rows(), Eigen::NoChange);
            k.bottomRows(x.rows()) = added.k[std::size_t(h)];
            v.bottomRows(x.rows()) = added.v[std::size_t(h)];
        }
    }
    return attend_keys(p, x, kv, heads, head_dim, step, bias, causal, first, weights);
}

}  // namespace attn::model
