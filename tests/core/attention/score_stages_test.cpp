// The score stages (scale, soft-cap, position bias, temperature, causal window) against
// hand-computed values and a brute-force double reference, on every pass that weighs scores:
// the kept one (every stage derivable), the tiled weights-only one and the streamed one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>

#include "attn/attention/attention.hpp"
#include "attn/attention/mask.hpp"
#include "attn/attention/score_stages.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::AttentionParams;
using attn::BoolMatrix;
using attn::HeadResult;
using attn::Index;
using attn::MaskKind;
using attn::Matrix;
using attn::MatrixD;

constexpr double kStageInf = std::numeric_limits<double>::infinity();

/// Query i may see key j under a causal window of w keys, bottom-right aligned: by definition.
bool window_sees(Index i, Index j, Index nq, Index nk, Index w) {
    const Index last = i + (nk - nq);
    return j <= last && j > last - w;
}

/// The stages in double, straight from their definitions.
struct ReferenceStages {
    MatrixD scaled, capped, logits, weights;
};

ReferenceStages reference_stages(const MatrixD& raw, double scale, double cap,
                                 const std::function<double(Index, Index)>& bias, double tau,
                                 const BoolMatrix& allowed) {
    ReferenceStages r;
    const Index nq = raw.rows(), nk = raw.cols();
    r.scaled = raw * scale;
    r.capped = r.scaled;
    r.logits.resize(nq, nk);
    r.weights.setZero(nq, nk);
    for (Index i = 0; i < nq; ++i) {
        double top = -kStageInf;
        for (Index j = 0; j < nk; ++j) {
            if (cap > 0) r.capped(i, j) = cap * std::tanh(r.scaled(i, j) / cap);
            if (bias) r.capped(i, j) += bias(i, j);
            r.logits(i, j) = allowed(i, j) ? r.capped(i, j) / tau : -kStageInf;
            top = std::max(top, r.logits(i, j));
        }
        double sum = 0;
        for (Index j = 0; j < nk; ++j)
            sum += std::exp(r.logits(i, j) - top);
        for (Index j = 0; j < nk; ++j)
            r.weights(i, j) = std::exp(r.logits(i, j) - top) / sum;
    }
    return r;
}

/// |a − b| ≤ tol · (1 + |b|) at every finite entry, and the same infinities.
void expect_close(const Matrix& a, const MatrixD& b, double tol, const char* what) {
    ASSERT_EQ(a.rows(), b.rows()) << what;
    ASSERT_EQ(a.cols(), b.cols()) << what;
    for (Index i = 0; i < a.rows(); ++i)
        for (Index j = 0; j < a.cols(); ++j) {
            if (std::isinf(b(i, j))) {
                EXPECT_EQ(double(a(i, j)), b(i, j)) << what << " at " << i << ", " << j;
                continue;
            }
            EXPECT_NEAR(a(i, j), b(i, j), tol * (1 + std::abs(b(i, j))))
                << what << " at " << i << ", " << j;
        }
}

TEST(ScoreStages, SoftCapByHand) {
    // Raw scores 2, −4, 100 at d_k = 4: scaled by 1/2 to 1, −2, 50; capped at 5:
    // 5·tanh(0.2) = 0.986877, 5·tanh(−0.4) = −1.899745, 5·tanh(10) = 4.99999999.
    Matrix raw(1, 3);
    raw << 2.f, -4.f, 100.f;
    AttentionParams p;
    p.softcap = 5.f;
    const HeadResult h = attn::attend_scores(raw, 4.f, p);
    ASSERT_TRUE(h.shaped());
    EXPECT_FLOAT_EQ(h.scaled_row(0)(2), 50.f);
    const Eigen::RowVectorXf c = h.softcapped_row(0);
    EXPECT_NEAR(c(0), 0.986877f, 2e-6f);
    EXPECT_NEAR(c(1), -1.899745f, 2e-6f);
    EXPECT_NEAR(c(2), 5.f, 2e-6f);
    // Uncapped, key 2 would take every weight (e^49 more); capped, e^4.99999 / Σ.
    const double e0 = std::exp(0.986877), e1 = std::exp(-1.899745), e2 = std::exp(5.0);
    EXPECT_NEAR(h.weights(0, 2), e2 / (e0 + e1 + e2), 2e-6);
    EXPECT_NEAR(h.weights(0, 0), e0 / (e0 + e1 + e2), 2e-6);
}

TEST(ScoreStages, SoftCapTowardsInfinityIsNoSoftCap) {
    std::mt19937 rng(7);
    std::normal_distribution<float> g(0.f, 3.f);
    Matrix raw(4, 6);
    for (Index i = 0; i < raw.size(); ++i)
        raw.data()[i] = g(rng);
    AttentionParams none, huge;
    none.temperature = huge.temperature = 0.8f;
    huge.softcap = 1e6f;  // tanh(x) = x − x³/3 …: relative change ~ (s / cap)² ≈ 1e-11
    const HeadResult a = attn::attend_scores(raw, 9.f, none),
                     b = attn::attend_scores(raw, 9.f, huge);
    EXPECT_FALSE(a.shaped());
    EXPECT_TRUE(b.shaped());
    EXPECT_LT((a.weights - b.weights).cwiseAbs().maxCoeff(), 1e-6f);
    EXPECT_LT((a.masked_matrix() - b.masked_matrix()).cwiseAbs().maxCoeff(), 1e-5f);
    // Without a later stage, τ folds into the multiplier; with one, it divides after.
    EXPECT_FLOAT_EQ(a.multiplier, 1.f / (3.f * 0.8f));
    EXPECT_FLOAT_EQ(b.multiplier, 1.f / 3.f);
    EXPECT_FLOAT_EQ(b.tempering, 1.f / 0.8f);
}

TEST(ScoreStages, CausalWindowByHand) {
    attn::MaskSpec m;
    m.kind = MaskKind::CausalWindow;
    m.window = 2;
    // Query i sees keys i − 1 and i.
    const BoolMatrix a = attn::build_mask(m, 4, 4);
    const int want[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 1}};
    for (Index i = 0; i < 4; ++i)
        for (Index j = 0; j < 4; ++j)
            EXPECT_EQ(a(i, j), want[i][j] != 0) << i << ", " << j;
    // Rectangular, bottom-right aligned as Causal: 2 queries over 5 keys are positions 3 and 4.
    const BoolMatrix r = attn::build_mask(m, 2, 5);
    for (Index i = 0; i < 2; ++i)
        for (Index j = 0; j < 5; ++j)
            EXPECT_EQ(r(i, j), window_sees(i, j, 2, 5, 2)) << i << ", " << j;
    EXPECT_EQ(r.row(0).count(), 2);
    EXPECT_TRUE(r(1, 4) && r(1, 3) && !r(1, 2));
    // A block equals the same block of the whole mask.
    m.window = 3;
    const BoolMatrix whole = attn::build_mask(m, 9, 9);
    EXPECT_EQ(attn::build_mask_block(m, 9, 9, 4, 3, 2, 5), whole.block(4, 2, 3, 5));
    m.window = 0;
    EXPECT_THROW(attn::build_mask(m, 3, 3), attn::ArgumentError);
    EXPECT_EQ(attn::mask_kind_from_string("causal-window"), MaskKind::CausalWindow);
    EXPECT_EQ(attn::to_string(MaskKind::CausalWindow), "causal-window");
}

TEST(ScoreStages, CausalWindowAtLeastTheSequenceIsCausal) {
    attn::MaskSpec causal, window;
    causal.kind = MaskKind::Causal;
    window.kind = MaskKind::CausalWindow;
    for (const Index n : {Index(1), Index(5), Index(17)})
        for (const Index w : {n, n + 1, 4 * n}) {
            window.window = w;
            EXPECT_EQ(attn::build_mask(window, n, n), attn::build_mask(causal, n, n)) << n << w;
            window.window = w + 3;  // a window at least the n + 3 keys
            EXPECT_EQ(attn::build_mask(window, 3, n + 3), attn::build_mask(causal, 3, n + 3));
        }
    // And so are the weights.
    std::mt19937 rng(3);
    std::normal_distribution<float> g;
    Matrix Q(7, 4), K(7, 4), V(7, 2);
    for (Matrix* m : {&Q, &K, &V})
        for (Index i = 0; i < m->size(); ++i)
            m->data()[i] = g(rng);
    AttentionParams a, b;
    a.mask = causal;
    b.mask = window;
    b.mask.window = 7;
    EXPECT_EQ(attn::attend(Q, K, V, a).weights, attn::attend(Q, K, V, b).weights);
}

/// Every stage and the weights of every pass equal the double reference: scale factor 0.3
/// (not 1/√d_k), soft-cap 2, a T5-style bias function, τ = 0.7, a causal window of 3.
TEST(ScoreStages, EveryStageOfEveryPassEqualsADoubleReference) {
    std::mt19937 rng(36);
    std::normal_distribution<float> g(0.f, 2.f);
    const Index n = 23, dk = 8;
    Matrix Q(n, dk), K(n, dk), V(n, 3);
    for (Matrix* m : {&Q, &K, &V})
        for (Index i = 0; i < m->size(); ++i)
            m->data()[i] = g(rng);
    AttentionParams p;
    p.scale_factor = 0.3f;
    p.softcap = 2.f;
    p.temperature = 0.7f;
    p.mask.kind = MaskKind::CausalWindow;
    p.mask.window = 3;
    auto bias = std::make_shared<attn::PositionBias>();
    // A relative bias: −0.25 per key of distance, +1 on the diagonal.
    bias->function = [](Index, Index i, Index j) {
        return i == j ? 1.f : -0.25f * float(i > j ? i - j : j - i);
    };
    p.bias = bias;
    const MatrixD raw = (Q.cast<double>() * K.cast<double>().transpose());
    BoolMatrix allowed(n, n);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j)
            allowed(i, j) = window_sees(i, j, n, n, 3);
    const ReferenceStages ref = reference_stages(
        raw, 0.3, 2.0, [&](Index i, Index j) { return double(bias->function(0, i, j)); }, 0.7,
        allowed);

    const HeadResult kept = attn::attend(Q, K, V, p);
    ASSERT_TRUE(kept.has_stages());
    expect_close(kept.scaled_matrix(), ref.scaled, 1e-5, "scaled");
    expect_close(kept.softcapped_matrix(), ref.capped, 1e-5, "softcapped");
    expect_close(kept.masked_matrix(), ref.logits, 1e-5, "masked");
    expect_close(kept.weights, ref.weights, 1e-5, "weights (kept)");
    EXPECT_EQ(kept.masked_at(5, 5), kept.masked_matrix()(5, 5));
    EXPECT_EQ(kept.masked_at(5, 1), -std::numeric_limits<float>::infinity());

    AttentionParams tiled = p;
    tiled.keep_stages = false;
    expect_close(attn::attend(Q, K, V, tiled).weights, ref.weights, 1e-5, "weights (tiled)");

    // Streamed: no weights kept, each row's max and 1/Σ: w = exp(z − max) · inv.
    AttentionParams streamed = tiled;
    streamed.overview_cells = 4;
    const HeadResult s = attn::attend(Q, K, V, streamed);
    ASSERT_TRUE(s.streamed());
    for (Index i = 0; i < n; ++i) {
        const float m = s.row_max[std::size_t(i)], inv = s.row_inv_sum[std::size_t(i)];
        ASSERT_TRUE(std::isfinite(m) && std::isfinite(inv)) << i;
        for (Index j = 0; j < n; ++j) {
            const double w = allowed(i, j) ? std::exp(ref.logits(i, j) - m) * inv : 0.0;
            EXPECT_NEAR(w, ref.weights(i, j), 1e-5) << "streamed " << i << ", " << j;
        }
    }
}

TEST(ScoreStages, PerHeadBiasMatricesAndTheHardLimit) {
    // Two heads' bias matrices; head 1 reads the second. Raw scores equal, so the bias decides.
    Matrix raw = Matrix::Zero(2, 3);
    auto bias = std::make_shared<attn::PositionBias>();
    Matrix b0(2, 3), b1(2, 3);
    b0 << 0.f, 1.f, 2.f, 0.f, 0.f, 0.f;
    b1 << 2.f, 1.f, 0.f, 0.f, 0.f, 0.f;
    bias->per_head = {b0, b1};
    AttentionParams p;
    p.bias = bias;
    p.bias_head = 1;
    const HeadResult h = attn::attend_scores(raw, 1.f, p);
    const double e = std::exp(1.0), e2 = std::exp(2.0), sum = 1 + e + e2;
    EXPECT_NEAR(h.weights(0, 0), e2 / sum, 1e-6);
    EXPECT_NEAR(h.weights(0, 2), 1 / sum, 1e-6);
    EXPECT_NEAR(h.weights(1, 1), 1.0 / 3, 1e-6);
    EXPECT_FLOAT_EQ(h.softcapped_row(0)(0), 2.f);
    // τ → 0 with a soft-cap: the argmax of the capped scores (5·tanh keeps the order).
    Matrix r2(1, 3);
    r2 << 1.f, 30.f, 20.f;
    AttentionParams hard;
    hard.temperature = 0.f;
    hard.softcap = 5.f;
    const HeadResult hh = attn::attend_scores(r2, 1.f, hard);
    EXPECT_TRUE(hh.hard);
    EXPECT_EQ(hh.weights(0, 1), 1.f);
    EXPECT_EQ(hh.weights(0, 0) + hh.weights(0, 2), 0.f);
    // A bias matrix that does not cover the scores is refused by name.
    p.bias_head = 0;
    Matrix big = Matrix::Zero(3, 3);
    EXPECT_THROW(attn::attend_scores(big, 1.f, p), attn::ShapeError);
    AttentionParams bad;
    bad.softcap = -1.f;
    EXPECT_THROW(attn::attend_scores(raw, 1.f, bad), attn::ArgumentError);
}

}  // namespace
