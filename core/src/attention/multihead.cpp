// AttnScope core — multi-head, grouped-query and cross attention. GPL-3.0-or-later.
#include "attn/attention/multihead.hpp"

#include <string>

#include "../util/parallel.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"
#include "attn/util/stage_counters.hpp"
#include "detail.hpp"

namespace attn {

Index MultiHeadConfig::d_k() const {
    if (d_model <= 0)
        throw ArgumentError("d_model must be positive (got " + std::to_string(d_model) + ").");
    if (heads <= 0)
        throw ArgumentError("The number of heads must be positive (got " + std::to_string(heads) +
                            ").");
    if (d_model % heads != 0)
        throw ArgumentError("The number of heads (" + std::to_string(heads) +
                            ") must divide d_model (" + std::to_string(d_model) +
                            "): d_k = d_model / heads would not be a whole number.");
    return d_model / heads;
}

Index MultiHeadConfig::kv() const {
    if (kv_heads == 0) return heads;
    if (kv_heads < 0 || kv_heads > heads || heads % kv_heads != 0)
        throw ArgumentError("kv_heads (" + std::to_string(kv_heads) +
                            ") must be 0 (same as heads) or a divisor of heads (" +
                            std::to_string(heads) + ") between 1 and heads.");
    return kv_heads;
}

void MultiHeadConfig::validate() const {
    d_k();
    kv();
}

MultiHeadWeights MultiHeadWeights::xavier(const MultiHeadConfig& config, ScoreKind kind,
                                          std::uint64_t seed, float sigma) {
    const Index d = config.d_model, dk = config.d_k(), kv = config.kv();
    MultiHeadWeights w;
    w.Wq = Rng(derive_seed(seed, 1)).xavier(d, d);
    w.Wk = Rng(derive_seed(seed, 2)).xavier(d, kv * dk);
    w.Wv = Rng(derive_seed(seed, 3)).xavier(d, kv * dk);
    w.Wo = Rng(derive_seed(seed, 4)).xavier(d, d);
    for (Index h = 0; h < config.heads; ++h)
        w.head_scores.push_back(make_score_params(
            kind, dk, derive_seed(seed, 100 + static_cast<std::uint64_t>(h)), sigma));
    return w;
}

Index kv_head_of(Index head, Index heads, Index kv_heads) {
    if (heads <= 0 || kv_heads <= 0 || kv_heads > heads || heads % kv_heads != 0)
        throw ArgumentError("kv_heads (" + std::to_string(kv_heads) + ") must divide heads (" +
                            std::to_string(heads) + ").");
    if (head < 0 || head >= heads)
        throw ArgumentError("Head " + std::to_string(head) + " is out of range [0, " +
                            std::to_string(heads) + ").");
    return head / (heads / kv_heads);
}

namespace {

void check_weight(const Matrix& W, const char* name, Index rows, Index cols, bool values) {
    if (W.rows() != rows || W.cols() != cols)
        throw ShapeError(std::string(name) + " must be " + detail::shape(rows, cols) + ", got " +
                         detail::shape(W.rows(), W.cols()) + ".");
    if (values) detail::require_finite(W, name);
}

/// heads_into once the weights and projections are known to be valid (multi_head_into checked
/// the weights before projecting: a second pass over 4 d_model² floats was 3 % of a call).
/// finite_known: r.Q, r.K and r.V are known to be finite (not checked again per head).
void heads_checked(const MultiHeadWeights& weights, const MultiHeadConfig& config,
                   const AttentionParams& params, MultiHeadResult& r, Progress* progress,
                   bool with_stats, const std::vector<HeadResult>* raw_from,
                   bool finite_known = false);

/// Shapes of every weight, and (values) that each is finite.
void check_weights(const MultiHeadWeights& weights, const MultiHeadConfig& config,
                   bool values = true) {
    const Index d = config.d_model, h = config.heads, kv = config.kv(), dk = config.d_k();
    check_weight(weights.Wq, "W_Q", d, d, values);
    check_weight(weights.Wk, "W_K", d, kv * dk, values);
    check_weight(weights.Wv, "W_V", d, kv * dk, values);
    check_weight(weights.Wo, "W_O", d, d, values);
    if (!weights.head_scores.empty() && static_cast<Index>(weights.head_scores.size()) != h)
        throw ShapeError("head_scores has " + std::to_string(weights.head_scores.size()) +
                         " entries but there are " + std::to_string(h) + " heads.");
}

}  // namespace

MultiHeadResult multi_head(const Matrix& Xq, const Matrix& Xkv, const MultiHeadWeights& weights,
                           const MultiHeadConfig& config, const AttentionParams& params,
                           Progress* progress) {
    MultiHeadResult r;
    multi_head_into(Xq, Xkv, weights, config, params, r, progress);
    return r;
}

void multi_head_into(const Matrix& Xq, const Matrix& Xkv, const MultiHeadWeights& weights,
                     const MultiHeadConfig& config, const AttentionParams& params,
                     MultiHeadResult& r, Progress* progress, bool with_stats) {
    config.validate();
    const Index d = config.d_model, kv = config.kv(), dk = config.d_k();
    const Index nq = Xq.rows(), nk = Xkv.rows();
    if (nq == 0 || nk == 0)
        throw ArgumentError("Empty sequence: " + std::to_string(nq) + " queries and " +
                            std::to_string(nk) + " keys; attention needs at least one of each.");
    if (Xq.cols() != d || Xkv.cols() != d)
        throw ShapeError("Inputs must have d_model = " + std::to_string(d) + " columns: X_q is " +
                         detail::shape(nq, Xq.cols()) + ", X_kv is " +
                         detail::shape(nk, Xkv.cols()) + ".");
    detail::require_finite(Xq, "X_q");
    if (&Xkv != &Xq) detail::require_finite(Xkv, "X_kv");
    check_weights(weights, config);
    report(progress, 0.0);

    r.d_k = dk;
    detail::keep_freed_blocks();  // before the first block of this result
    r.Q.resize(nq, d);
    r.K.resize(nk, kv * dk);
    r.V.resize(nk, kv * dk);
    stage_counters().projections.fetch_add(1, std::memory_order_relaxed);
    // Both projections split by rows across the threads; each thread takes a slice of Q and
    // the matching slice of K and V.
    const Index n_max = std::max(nq, nk);
    detail::parallel_rows(n_max, 2.0 * d * (d + 2 * kv * dk), [&](Index b, Index count) {
        const Index e = b + count;
        const Index qb = nq * b / n_max, qe = nq * e / n_max;
        const Index kb = nk * b / n_max, ke = nk * e / n_max;
        r.Q.middleRows(qb, qe - qb).noalias() = Xq.middleRows(qb, qe - qb) * weights.Wq;
        r.K.middleRows(kb, ke - kb).noalias() = Xkv.middleRows(kb, ke - kb) * weights.Wk;
        r.V.middleRows(kb, ke - kb).noalias() = Xkv.middleRows(kb, ke - kb) * weights.Wv;
    });
    // Finite inputs and weights can still overflow; checked here once, contiguous, rather than
    // per head on strided slices (4 % of a call at n = 2048).
    detail::require_finite(r.Q, "The projected queries Q");
    detail::require_finite(r.K, "The projected keys K");
    detail::require_finite(r.V, "The projected values V");
    heads_checked(weights, config, params, r, progress, with_stats, nullptr, true);
}

namespace detail {

void heads_into(const MultiHeadWeights& weights, const MultiHeadConfig& config,
                const AttentionParams& params, MultiHeadResult& r, Progress* progress,
                bool with_stats, const std::vector<HeadResult>* raw_from) {
    const Index d = config.d_model, kv = config.kv(), dk = config.d_k();
    if (r.Q.cols() != d || r.K.cols() != kv * dk || r.V.cols() != kv * dk)
        throw ShapeError("heads_into: the projections do not match the configuration.");
    if (raw_from && static_cast<Index>(raw_from->size()) != config.heads)
        throw ShapeError("heads_into: " + std::to_string(raw_from->size()) +
                         " heads of raw scores for " + std::to_string(config.heads) + " heads.");
    // Called on a previous result's projections, computed from these weights: their values
    // were checked then (a pass over 4 d_model² floats, 6 % of a restart); shapes only.
    check_weights(weights, config, false);
    heads_checked(weights, config, params, r, progress, with_stats, raw_from);
}

}  // namespace detail

namespace {

using detail::attend_into;
using detail::ConstRef;
using detail::finish_scores;

void heads_checked(const MultiHeadWeights& weights, const MultiHeadConfig& config,
                   const AttentionParams& params, MultiHeadResult& r, Progress* progress,
                   bool with_stats, const std::vector<HeadResult>* raw_from, bool finite_known) {
    const Index d = config.d_model, h = config.heads, kv = config.kv(), dk = config.d_k();
    const Index nq = r.Q.rows();
    r.d_k = dk;
    r.heads.resize(static_cast<std::size_t>(h));
    r.stats.resize(with_stats ? static_cast<std::size_t>(h) : 0);
    const bool outputs = params.keep_stages ? params.stage_outputs
                                            : params.keep_output && params.overview_cells <= 0;
    r.concat.resize(outputs ? nq : 0, d);
    detail::run_tasks(
        h,
        [&](Index k) {
            AttentionParams p = params;
            p.bias_head = k;  // a per-head position bias: this head's
            if (!weights.head_scores.empty()) {
                p.score = weights.head_scores[static_cast<std::size_t>(k)];
                p.score.kind = params.score.kind;
            }
            const Index g = kv_head_of(k, h, kv);
            HeadResult& head = r.heads[static_cast<std::size_t>(k)];
            HeadStats* stats = with_stats ? &r.stats[static_cast<std::size_t>(k)] : nullptr;
            if (raw_from) {
                // The kept raw scores: only what follows them, the same calls as attend_into's.
                const HeadResult& from = (*raw_from)[static_cast<std::size_t>(k)];
                if (from.raw.rows() != nq || from.raw.cols() != r.K.rows())
                    throw ShapeError("heads_into: head " + std::to_string(k) +
                                     " holds no raw scores of the right shape.");
                finish_scores(p.scale_dk.value_or(static_cast<float>(dk)), p, head, stats, &from);
                if (outputs) {
                    const ConstRef V = r.V.middleCols(g * dk, dk);
                    head.output.resize(nq, V.cols());
                    head.output.noalias() = head.weights * V;
                } else {
                    head.output.resize(0, 0);
                }
            } else {
                attend_into(r.Q.middleCols(k * dk, dk), r.K.middleCols(g * dk, dk),
                            r.V.middleCols(g * dk, dk), p, head, stats, finite_known);
            }
            if (outputs) r.concat.middleCols(k * dk, dk) = head.output;
        },
        [&](Index done) { report(progress, 0.05 + 0.9 * static_cast<double>(done) / h); });

    if (!outputs) {
        // Weights only, or stages without outputs: outputs are recomputed per query on demand
        // (SceneResult::output_row).
        r.concat.resize(0, 0);
        r.output.resize(0, 0);
        report(progress, 1.0);
        return;
    }
    r.output.resize(nq, d);
    detail::parallel_rows(nq, 2.0 * d * d, [&](Index b, Index count) {
        r.output.middleRows(b, count).noalias() = r.concat.middleRows(b, count) * weights.Wo;
    });
    report(progress, 1.0);
}

}  // namespace

}  // namespace attn
