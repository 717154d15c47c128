// AttnScope core — score functions on whole matrices. GPL-3.0-or-later.
#include "attn/attention/score.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/simd/dot_kernel.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"
#include "detail.hpp"

namespace attn {

namespace detail {

std::string shape(Index rows, Index cols) {
    return std::to_string(rows) + " x " + std::to_string(cols);
}

void require_finite(const ConstRef& m, const std::string& what) {
    // x · 0 is 0 for finite x and NaN for ±inf and NaN: one vectorised sum per row (Eigen 3.4's
    // allFinite() tests element by element).
    bool finite = true;
    if (m.outerStride() == m.cols()) {
        // Contiguous (a whole matrix): one pass over all of it, not a reduction per row.
        finite = simd::all_finite(m.data(), m.size());
    }
    for (Index i = 0; i < m.rows() && finite && m.outerStride() != m.cols(); ++i)
        finite = !std::isnan((m.row(i).array() * 0.f).sum());
    if (finite) return;
    for (Index i = 0; i < m.rows(); ++i)
        for (Index j = 0; j < m.cols(); ++j)
            if (!std::isfinite(m(i, j)))
                throw NonFiniteError(what + " contains a non-finite value (" +
                                     std::to_string(m(i, j)) + ") at row " + std::to_string(i) +
                                     ", column " + std::to_string(j) + ".");
}

void check_score_inputs(const ConstRef& Q, const ConstRef& K, const ScoreParams& p,
                        bool finite_known) {
    if (Q.rows() == 0 || K.rows() == 0)
        throw ArgumentError("Empty sequence: " + std::to_string(Q.rows()) + " queries and " +
                            std::to_string(K.rows()) +
                            " keys; attention needs at least one of each.");
    if (Q.cols() == 0 || K.cols() == 0)
        throw ArgumentError("Zero-width vectors: Q is " + shape(Q.rows(), Q.cols()) + ", K is " +
                            shape(K.rows(), K.cols()) + ".");
    switch (p.kind) {
        case ScoreKind::Dot:
        case ScoreKind::Rbf:
            if (Q.cols() != K.cols())
                throw ShapeError("Q and K must have the same width for the " +
                                 std::string(to_string(p.kind)) + " score: Q is " +
                                 shape(Q.rows(), Q.cols()) + ", K is " + shape(K.rows(), K.cols()) +
                                 ".");
            if (p.kind == ScoreKind::Rbf && !(p.sigma > 0.f && std::isfinite(p.sigma)))
                throw ArgumentError("RBF bandwidth sigma must be positive and finite (got " +
                                    std::to_string(p.sigma) + ").");
            break;
        case ScoreKind::General:
            if (p.W.rows() != Q.cols() || p.W.cols() != K.cols())
                throw ShapeError(
                    "General score needs W of shape d_q x d_k = " + shape(Q.cols(), K.cols()) +
                    ", got " + shape(p.W.rows(), p.W.cols()) + ".");
            require_finite(p.W, "General score matrix W");
            break;
        case ScoreKind::Additive:
            if (p.Wa.rows() != Q.cols() || p.Ua.rows() != K.cols() || p.Wa.cols() != p.Ua.cols() ||
                p.va.size() != p.Wa.cols() || p.Wa.cols() == 0)
                throw ShapeError(
                    "Additive score needs W_a (d_q x d_a), U_a (d_k x d_a), v_a (d_a) "
                    "with d_q = " +
                    std::to_string(Q.cols()) + ", d_k = " + std::to_string(K.cols()) +
                    "; got W_a " + shape(p.Wa.rows(), p.Wa.cols()) + ", U_a " +
                    shape(p.Ua.rows(), p.Ua.cols()) + ", v_a " + std::to_string(p.va.size()) + ".");
            require_finite(p.Wa, "Additive score matrix W_a");
            require_finite(p.Ua, "Additive score matrix U_a");
            if (!p.va.allFinite())
                throw NonFiniteError("Additive score vector v_a contains a non-finite value.");
            break;
    }
    if (finite_known) return;
    require_finite(Q, "Q");
    require_finite(K, "K");
}

/// The keys of a head packed for simd::dot_rows: per block of `lanes` keys (the dispatched
/// kernel's width), each of the width dimensions' `lanes` values together (the last block padded
/// with zeros), so that the kernel reads K once, sequentially (as rows of Kᵀ it would touch width
/// pages per step).
void pack_keys(const ConstRef& K, Index lanes, Matrix& packed) {
    const Index nk = K.rows(), width = K.cols();
    const Index blocks = (nk + lanes - 1) / lanes;
    packed.resize(blocks, width * lanes);
    for (Index b = 0; b < blocks; ++b) {
        float* dst = packed.row(b).data();
        for (Index l = 0; l < lanes; ++l) {
            const Index j = b * lanes + l;
            for (Index d = 0; d < width; ++d)
                dst[d * lanes + l] = j < nk ? K(j, d) : 0.f;
        }
    }
}

namespace {

/// c · Σ_d (q_d − k_d)² for every query and key, through the dot kernel's squared distances:
/// term by term, because ‖q‖² + ‖k‖² − 2 q·k loses the distance to cancellation when the vectors
/// are long and close (its error is ε · ‖q‖², not ε · ‖q − k‖²), and a GEMM's rounding depends on
/// the CPU's kernel and the tile's shape.
void rbf_scores(const ConstRef& Q, const ConstRef& K, float c, MatrixRef out) {
    struct Scratch {
        Matrix keys, queries, rows;
        float maxima[8];
    };
    thread_local Scratch s;
    constexpr Index kRows = 8;  // the dot kernel's tile of queries
    const Index lanes = simd::dot_lanes(), nk = K.rows();
    pack_keys(K, lanes, s.keys);
    const bool direct = out.outerStride() == nk;
    for (Index b = 0; b < Q.rows(); b += kRows) {
        const Index len = std::min(kRows, Q.rows() - b);
        if (s.queries.rows() != len || s.queries.cols() != Q.cols())
            s.queries.resize(len, Q.cols());
        s.queries = Q.middleRows(b, len);
        if (!direct) s.rows.resize(len, nk);
        float* dst = direct ? out.row(b).data() : s.rows.data();
        simd::dot_rows(int(len), lanes, s.queries.data(), Q.cols(), s.keys.data(), s.keys.cols(),
                       nk, c, dst, s.maxima, simd::Pair::SquaredDistance);
        if (!direct) out.middleRows(b, len) = s.rows;
    }
}

}  // namespace

void scores_into(const ConstRef& Q, const ConstRef& K, const ScoreParams& p, Matrix& out) {
    resize_large(out, Q.rows(), K.rows());
    scores_into(Q, K, p, MatrixRef(out));
}

void scores_into(const ConstRef& Q, const ConstRef& K, const ScoreParams& p, MatrixRef out) {
    switch (p.kind) {
        case ScoreKind::Dot:
            out.noalias() = Q * K.transpose();
            break;
        case ScoreKind::General: {
            const Matrix QW = Q * p.W;
            out.noalias() = QW * K.transpose();
            break;
        }
        case ScoreKind::Additive: {
            const Matrix A = Q * p.Wa;
            const Matrix B = K * p.Ua;
            Eigen::ArrayXXf t(B.rows(), B.cols());
            for (Index i = 0; i < A.rows(); ++i) {
                t = (B.array().rowwise() + A.row(i).array()).tanh();
                out.row(i).noalias() = (t.matrix() * p.va).transpose();
            }
            break;
        }
        case ScoreKind::Rbf:
            rbf_scores(Q, K, -1.f / (2.f * p.sigma * p.sigma), out);
            break;
    }
}

}  // namespace detail

Matrix compute_scores(const Matrix& Q, const Matrix& K, const ScoreParams& params) {
    detail::check_score_inputs(Q, K, params);
    Matrix out;
    detail::scores_into(Q, K, params, out);
    return out;
}

ScoreParams make_score_params(ScoreKind kind, Index d, std::uint64_t seed, float sigma) {
    if (d <= 0)
        throw ArgumentError("make_score_params: width d must be positive (got " +
                            std::to_string(d) + ").");
    ScoreParams p;
    p.kind = kind;
    p.sigma = sigma;
    if (kind == ScoreKind::General) {
        p.W = Rng(derive_seed(seed, 1)).xavier(d, d);
    } else if (kind == ScoreKind::Additive) {
        p.Wa = Rng(derive_seed(seed, 2)).xavier(d, d);
        p.Ua = Rng(derive_seed(seed, 3)).xavier(d, d);
        Rng r(derive_seed(seed, 4));
        p.va = r.normal_matrix(d, 1, 1.0 / std::sqrt(static_cast<double>(d)));
    }
    return p;
}

bool score_is_scalable(ScoreKind kind) {
    return kind == ScoreKind::Dot || kind == ScoreKind::General;
}

std::string_view to_string(ScoreKind kind) {
    switch (kind) {
        case ScoreKind::Dot:
            return "dot";
        case ScoreKind::General:
            return "general";
        case ScoreKind::Additive:
            return "additive";
        case ScoreKind::Rbf:
            return "rbf";
    }
    return "dot";
}

ScoreKind score_kind_from_string(std::string_view name) {
    if (name == "dot" || name == "scaled-dot") return ScoreKind::Dot;
    if (name == "general") return ScoreKind::General;
    if (name == "additive") return ScoreKind::Additive;
    if (name == "rbf") return ScoreKind::Rbf;
    throw ArgumentError("Unknown score kind \"" + std::string(name) +
                        "\"; expected dot, scaled-dot, general, additive or rbf.");
}

}  // namespace attn
