// AttnScope core — the attention block as a differentiable map, with its reverse: scores q·kᵀ
// through a head's score stages (attn::ScoreStages: scaled, soft-capped, an additive position
// bias, tempered by 1/τ), masked (causal, windowed, any mask; knocked-out edges), softmax,
// weights · v; heads over grouped key/value heads. The families' forward of record goes through
// attend_head (run.hpp: stages, hooks, prefix reuse); this block states the same map for any
// scalar, so the reverse pass and the tests differentiate exactly what it computes.
// GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "attn/attention/mask.hpp"
#include "attn/attention/score_stages.hpp"
#include "attn/blocks/tensor.hpp"

namespace attn::blocks {

/// Mistral's and Gemma's causal window as a mask of N positions: query i sees keys in
/// (i − window, i] (transformers' sliding_window_causal: kv_idx > q_idx − sliding_window).
/// MaskKind::CausalWindow states it, as the forward of record runs it: build_mask resolves it
/// at any size (N, the callers' size, is not needed), a block at a time.
inline MaskSpec causal_window([[maybe_unused]] Index n, Index window) {
    MaskSpec m;
    m.kind = MaskKind::CausalWindow;
    m.window = window;
    return m;
}

/// The score stages of one head: ScoreStages' numbers for scalar S, with its position bias as
/// a matrix, its mask and its knock-outs.
template <class S>
struct HeadSpec {
    S multiplier = S(1);  ///< scaled = raw · multiplier (1/√d_k, a family's own, ÷ τ when folded)
    S softcap = S(0);     ///< > 0: scores become softcap · tanh(scores / softcap) (Gemma 2)
    Mat<S> bias;          ///< nq × nk added after the soft-cap (ALiBi, T5); empty: none
    S tempering = S(1);  ///< 1/τ after the soft-cap and bias (1 when folded into multiplier)
    BoolMatrix allowed;  ///< nq × nk, true where a query sees a key; empty: every key
    /// Knocked-out edges (query, key): removed, the row renormalised over the keys left, which
    /// is the softmax with those keys masked (how InterventionHooks' knockout acts).
    std::vector<std::pair<Index, Index>> knocked;

    /// The spec of a head whose scores go through ST (attn::head_score_stages), over NQ queries
    /// and NK keys: its bias read into a matrix; the mask and knock-outs are the caller's.
    /// ST.hard is not read: a hardmax is piecewise constant (its gradient zero wherever it has
    /// one), so in the hard limit the spec is the softmax of the same scores at τ = 1 (the
    /// scale alone, as head_score_stages leaves them), whose argmax is the hardmax's.
    static HeadSpec from(const ScoreStages& st, Index nq, Index nk) {
        HeadSpec s;
        s.multiplier = S(st.multiplier);
        s.softcap = S(st.softcap);
        s.tempering = S(st.tempering);
        if (st.bias) {
            s.bias.resize(nq, nk);
            for (Index i = 0; i < nq; ++i)
                for (Index j = 0; j < nk; ++j)
                    s.bias(i, j) = S(st.bias->at(st.bias_head, i, j));
        }
        return s;
    }
};

/// One head's forward: what the reverse needs.
template <class S>
struct HeadForward {
    Mat<S> raw;      ///< q·kᵀ
    Mat<S> weights;  ///< softmax rows (all zero where a query sees no key)
    Mat<S> out;      ///< weights · v
};

/// The softmax's input at raw score R of query I and key J: the scaled, soft-capped, biased,
/// tempered score (attn::staged_score, as score_stages computes it).
template <class S>
S head_logit(const HeadSpec<S>& spec, S r, Index i, Index j) {
    const S* bias = spec.bias.size() ? &spec.bias(i, j) : nullptr;
    return staged_score(r, spec.multiplier, spec.softcap, bias, spec.tempering);
}

/// Which keys query I sees under SPEC (nk keys).
template <class S>
std::vector<char> head_visible(const HeadSpec<S>& spec, Index i, Index nk) {
    std::vector<char> on(std::size_t(nk), 1);
    if (spec.allowed.size())
        for (Index j = 0; j < nk; ++j)
            on[std::size_t(j)] = spec.allowed(i, j);
    for (const auto& [qi, kj] : spec.knocked)
        if (qi == i && kj < nk) on[std::size_t(kj)] = 0;
    return on;
}

/// One head: Q nq × d, K nk × d, V nk × d_v.
template <class S>
HeadForward<S> head_forward(const Mat<S>& q, const Mat<S>& k, const Mat<S>& v,
                            const HeadSpec<S>& spec) {
    HeadForward<S> f{q * k.transpose(), Mat<S>::Zero(q.rows(), k.rows()), Mat<S>()};
    for (Index i = 0; i < q.rows(); ++i) {
        const std::vector<char> on = head_visible(spec, i, k.rows());
        S top = -std::numeric_limits<S>::infinity();
        for (Index j = 0; j < k.rows(); ++j)
            if (on[std::size_t(j)]) top = std::max(top, head_logit(spec, f.raw(i, j), i, j));
        if (!std::isfinite(top)) continue;  // no visible key: the row stays zero
        S sum = 0;
        for (Index j = 0; j < k.rows(); ++j)
            if (on[std::size_t(j)])
                sum += f.weights(i, j) = std::exp(head_logit(spec, f.raw(i, j), i, j) - top);
        f.weights.row(i) /= sum;
    }
    f.out = f.weights * v;
    return f;
}

/// One head's reverse: the gradients of q, k, v, of the weights and of the additive bias.
template <class S>
struct HeadGrad {
    Mat<S> dq, dk, dv;
    Mat<S> dweights;  ///< ∂/∂weights (attention × gradient reads it)
    Mat<S> dbias;     ///< ∂/∂bias (= ∂/∂ softmax input · tempering)
};

/// One head's vector–Jacobian product at F (head_forward's) for the output gradient DOUT;
/// DWEIGHTS_EXTRA (optional, nq × nk) is added to the weights' gradient (a loss that reads them).
template <class S>
HeadGrad<S> head_vjp(const Mat<S>& q, const Mat<S>& k, const Mat<S>& v, const HeadSpec<S>& spec,
                     const HeadForward<S>& f, const Mat<S>& dout,
                     const Mat<S>* dweights_extra = nullptr) {
    HeadGrad<S> g;
    g.dv = f.weights.transpose() * dout;
    g.dweights = dout * v.transpose();
    if (dweights_extra) g.dweights += *dweights_extra;
    // Softmax: dz = P ⊙ (dP − Σ_j dP·P); hidden keys have P = 0 and get nothing.
    g.dbias = Mat<S>(f.weights.rows(), f.weights.cols());
    for (Index i = 0; i < f.weights.rows(); ++i) {
        const S inner = g.dweights.row(i).dot(f.weights.row(i));
        g.dbias.row(i) = f.weights.row(i).array() * (g.dweights.row(i).array() - inner);
    }
    // The logit is the shaped score · tempering: its gradient, the bias's, is the logit's · it.
    if (spec.tempering != S(1)) g.dbias *= spec.tempering;
    Mat<S> draw = g.dbias;
    if (spec.softcap > S(0))
        for (Index i = 0; i < draw.rows(); ++i)
            for (Index j = 0; j < draw.cols(); ++j) {
                const S t = std::tanh(f.raw(i, j) * spec.multiplier / spec.softcap);
                draw(i, j) *= S(1) - t * t;
            }
    draw *= spec.multiplier;
    g.dq = draw * k;
    g.dk = draw.transpose() * q;
    return g;
}

/// Every head of a layer: query head h reads key/value head h / (heads / kv_heads).
template <class S>
struct HeadsSpec {
    Index heads = 1, kv_heads = 1, head_dim = 1;
    std::vector<HeadSpec<S>> head;  ///< one per query head
};

/// Key/value head of query head H (grouped-query attention).
inline Index kv_head_of(Index h, Index heads, Index kv_heads) {
    return h / (heads / kv_heads);
}

/// Every head's forward: Q n × heads·head_dim, K and V nk × kv_heads·head_dim; OUT gets the
/// heads' outputs side by side (n × heads·head_dim), the per-head stages are returned.
template <class S>
std::vector<HeadForward<S>> heads_forward(const Mat<S>& q, const Mat<S>& k, const Mat<S>& v,
                                          const HeadsSpec<S>& spec, Mat<S>& out) {
    const Index hd = spec.head_dim;
    std::vector<HeadForward<S>> f;
    out.resize(q.rows(), spec.heads * hd);
    for (Index h = 0; h < spec.heads; ++h) {
        const Index g = kv_head_of(h, spec.heads, spec.kv_heads);
        f.push_back(head_forward<S>(q.middleCols(h * hd, hd), k.middleCols(g * hd, hd),
                                    v.middleCols(g * hd, hd), spec.head[std::size_t(h)]));
        out.middleCols(h * hd, hd) = f.back().out;
    }
    return f;
}

/// Every head's reverse: the gradients of the merged Q, K, V (a key/value head gathers its
/// query heads'), from DOUT (n × heads·head_dim).
template <class S>
struct HeadsGrad {
    Mat<S> dq, dk, dv;
    std::vector<Mat<S>> dweights;  ///< per head
};

/// heads_forward's vector–Jacobian product.
template <class S>
HeadsGrad<S> heads_vjp(const Mat<S>& q, const Mat<S>& k, const Mat<S>& v, const HeadsSpec<S>& spec,
                       const std::vector<HeadForward<S>>& f, const Mat<S>& dout) {
    const Index hd = spec.head_dim;
    HeadsGrad<S> g{Mat<S>::Zero(q.rows(), q.cols()),
                   Mat<S>::Zero(k.rows(), k.cols()),
                   Mat<S>::Zero(v.rows(), v.cols()),
                   {}};
    for (Index h = 0; h < spec.heads; ++h) {
        const Index kv = kv_head_of(h, spec.heads, spec.kv_heads);
        const HeadGrad<S> hg = head_vjp<S>(q.middleCols(h * hd, hd), k.middleCols(kv * hd, hd),
                                           v.middleCols(kv * hd, hd), spec.head[std::size_t(h)],
                                           f[std::size_t(h)], dout.middleCols(h * hd, hd));
        g.dq.middleCols(h * hd, hd) = hg.dq;
        g.dk.middleCols(kv * hd, hd) += hg.dk;
        g.dv.middleCols(kv * hd, hd) += hg.dv;
        g.dweights.push_back(hg.dweights);
    }
    return g;
}

}  // namespace attn::blocks
