// Brute-force, double-precision reference attention (plain loops, no Eigen expressions), used to
// check the optimised Eigen path for every score kind and mask kind.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attn/attention/attention.hpp"
#include "attn/util/types.hpp"

namespace ref {

using attn::Index;
using attn::Matrix;
using attn::MatrixD;

/// Reference stages of one head.
struct Result {
    MatrixD raw, weights, output;
    std::vector<std::uint8_t> empty_rows;
};

/// s(q_i, k_j) in double, straight from the formulas.
inline double score(const Matrix& Q, Index i, const Matrix& K, Index j,
                    const attn::ScoreParams& p) {
    const Index dq = Q.cols(), dk = K.cols();
    switch (p.kind) {
        case attn::ScoreKind::Dot: {
            double s = 0;
            for (Index t = 0; t < dq; ++t)
                s += double(Q(i, t)) * double(K(j, t));
            return s;
        }
        case attn::ScoreKind::General: {
            double s = 0;
            for (Index a = 0; a < dq; ++a)
                for (Index b = 0; b < dk; ++b)
                    s += double(Q(i, a)) * double(p.W(a, b)) * double(K(j, b));
            return s;
        }
        case attn::ScoreKind::Additive: {
            double s = 0;
            for (Index a = 0; a < p.va.size(); ++a) {
                double h = 0;
                for (Index t = 0; t < dq; ++t)
                    h += double(Q(i, t)) * double(p.Wa(t, a));
                for (Index t = 0; t < dk; ++t)
                    h += double(K(j, t)) * double(p.Ua(t, a));
                s += double(p.va(a)) * std::tanh(h);
            }
            return s;
        }
        case attn::ScoreKind::Rbf: {
            double d2 = 0;
            for (Index t = 0; t < dq; ++t) {
                const double d = double(Q(i, t)) - double(K(j, t));
                d2 += d * d;
            }
            return -d2 / (2.0 * double(p.sigma) * double(p.sigma));
        }
    }
    return 0;
}

/// Whether query i may see key j, re-derived from the mask's definition.
inline bool allowed(const attn::MaskSpec& m, Index i, Index j, Index nq, Index nk) {
    switch (m.kind) {
        case attn::MaskKind::None:
            return true;
        case attn::MaskKind::Causal:
            return j <= i + (nk - nq);
        case attn::MaskKind::AntiCausal:
            return j >= i;
        case attn::MaskKind::Padding:
            return j >= Index(m.key_valid.size()) || m.key_valid[std::size_t(j)];
        case attn::MaskKind::SlidingWindow:
            return std::abs(i - j) <= m.window;
        case attn::MaskKind::GlobalWindow:
            if (std::abs(i - j) <= m.window) return true;
            for (Index g : m.global)
                if (g == i || g == j) return true;
            return false;
        case attn::MaskKind::Custom:
            return m.custom(i, j);
        case attn::MaskKind::CausalWindow:
            return j <= i + (nk - nq) && j > i + (nk - nq) - m.window;
    }
    return true;
}

/// Full reference attention with the same semantics as attn::attend (soft τ only).
inline Result attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                        const attn::AttentionParams& p) {
    const Index nq = Q.rows(), nk = K.rows(), dv = V.cols();
    const bool scalable = p.scale && (p.score.kind == attn::ScoreKind::Dot ||
                                      p.score.kind == attn::ScoreKind::General);
    const double dk = p.scale_dk ? double(*p.scale_dk) : double(Q.cols());
    const double c = (scalable ? 1.0 / std::sqrt(dk) : 1.0) / double(p.temperature);
    Result r;
    r.raw.resize(nq, nk);
    r.weights.setZero(nq, nk);
    r.output.setZero(nq, dv);
    r.empty_rows.assign(std::size_t(nq), 0);
    for (Index i = 0; i < nq; ++i) {
        double mx = -std::numeric_limits<double>::infinity();
        for (Index j = 0; j < nk; ++j) {
            r.raw(i, j) = score(Q, i, K, j, p.score);
            if (allowed(p.mask, i, j, nq, nk)) mx = std::max(mx, r.raw(i, j) * c);
        }
        if (mx == -std::numeric_limits<double>::infinity()) {
            r.empty_rows[std::size_t(i)] = 1;
            continue;
        }
        double sum = 0;
        for (Index j = 0; j < nk; ++j)
            if (allowed(p.mask, i, j, nq, nk)) sum += std::exp(r.raw(i, j) * c - mx);
        for (Index j = 0; j < nk; ++j)
            if (allowed(p.mask, i, j, nq, nk))
                r.weights(i, j) = std::exp(r.raw(i, j) * c - mx) / sum;
        for (Index j = 0; j < nk; ++j)
            for (Index t = 0; t < dv; ++t)
                r.output(i, t) += r.weights(i, j) * double(V(j, t));
    }
    return r;
}

}  // namespace ref
