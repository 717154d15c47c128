// The scaled and masked scores a HeadResult derives on read are, bit for bit, the numbers the
// stored stages held (raw · multiplier, −inf where the mask forbids), and the weights are the
// softmax of exactly those numbers, for every score kind, mask kind and temperature.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "../test_util.hpp"
#include "attn/attention/attention.hpp"
#include "attn/attention/softmax.hpp"
#include "attn/attention/stats.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;
using attn::Matrix;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// What the stored stages were: scaled = raw · c row by row, masked = scaled with −inf where
/// the whole mask (built at once) forbids.
struct OldStages {
    Matrix scaled, masked;
};

OldStages old_stages(const Matrix& raw, float c, const attn::MaskSpec& mask) {
    OldStages s{Matrix(raw.rows(), raw.cols()), Matrix(raw.rows(), raw.cols())};
    const attn::BoolMatrix allowed = attn::build_mask(mask, raw.rows(), raw.cols());
    for (Index i = 0; i < raw.rows(); ++i) {
        s.scaled.row(i) = raw.row(i) * c;
        for (Index j = 0; j < raw.cols(); ++j)
            s.masked(i, j) = allowed(i, j) ? s.scaled(i, j) : kNegInf;
    }
    return s;
}

bool same_matrix_bits(const Matrix& a, const Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (Index k = 0; k < a.size(); ++k)
        if (std::memcmp(a.data() + k, b.data() + k, sizeof(float)) != 0) return false;
    return true;
}

TEST(HeadDerived, ScaledAndMaskedEqualTheStoredStagesBitForBit) {
    attn::Rng rng(41);
    const Index nq = 37, nk = 29, dk = 8;
    const Matrix Q = rng.normal_matrix(nq, dk) * 3.f, K = rng.normal_matrix(nk, dk) * 3.f,
                 V = rng.normal_matrix(nk, 3);
    int checked = 0;
    for (auto kind : {attn::ScoreKind::Dot, attn::ScoreKind::General, attn::ScoreKind::Additive,
                      attn::ScoreKind::Rbf})
        for (const attn::MaskSpec& mask : testutil::all_masks(nq, nk, rng))
            for (float tau : {1.f, 0.7f, 0.f})
                for (bool scale : {true, false}) {
                    attn::AttentionParams p;
                    p.score = attn::make_score_params(kind, dk, 5);
                    p.mask = mask;
                    p.temperature = tau;
                    p.scale = scale;
                    const attn::HeadResult r = attn::attend(Q, K, V, p);
                    std::string at(attn::to_string(mask.kind));
                    ((at += " tau ") += std::to_string(tau)) += " kind ";
                    (at += std::to_string(int(kind))) += scale ? " scaled" : "";
                    // The factor from its definition, not from the head.
                    const bool scales = scale && attn::score_is_scalable(kind);
                    const float f = scales ? 1.f / std::sqrt(float(dk)) : 1.f;
                    ASSERT_EQ(r.multiplier, tau == 0.f ? f : f / tau) << at;
                    const OldStages old = old_stages(r.raw, r.multiplier, mask);
                    EXPECT_TRUE(same_matrix_bits(r.scaled_matrix(), old.scaled)) << at;
                    EXPECT_TRUE(same_matrix_bits(r.masked_matrix(), old.masked)) << at;
                    for (Index i : {Index(0), Index(nq / 2), Index(nq - 1)}) {
                        EXPECT_TRUE(same_matrix_bits(r.scaled_row(i), old.scaled.row(i))) << at;
                        EXPECT_TRUE(same_matrix_bits(r.masked_row(i), old.masked.row(i))) << at;
                        for (Index j = 0; j < nk; j += 3)
                            EXPECT_TRUE(same_matrix_bits(Matrix::Constant(1, 1, r.masked_at(i, j)),
                                                         old.masked.block(i, j, 1, 1)))
                                << at << " " << i << "," << j;
                    }
                    // The weights are the softmax (hardmax) of exactly the old masked stage.
                    std::vector<std::uint8_t> empty;
                    const Matrix w = tau == 0.f ? attn::hardmax_rows(old.masked, &empty)
                                                : attn::softmax_rows(old.masked, &empty);
                    EXPECT_TRUE(same_matrix_bits(r.weights, w)) << at;
                    EXPECT_EQ(r.empty_rows, empty) << at;
                    ++checked;
                }
    EXPECT_EQ(checked, 4 * 7 * 3 * 2);
}

// The fused pass takes the entropy as log Σ exp z − Σ α z (no logarithm per key) and its sums in
// a run-time dispatched kernel that never fuses a multiply-add; head_stats takes −Σ α log α over
// the derived masked scores: equal to float rounding.
TEST(HeadDerived, StatisticsOfTheFusedPassMatchThoseFromTheDerivedStages) {
    attn::Rng rng(8);
    for (const attn::MaskSpec& mask : testutil::all_masks(70, 70, rng)) {
        attn::SceneSpec spec;
        spec.text.clear();
        for (int i = 0; i < 70; ++i)
            ((spec.text += 'w') += std::to_string(i % 23)) += ' ';
        spec.mask = mask;
        spec.temperature = 0.8f;
        const attn::SceneResult s = attn::compute_scene(spec, nullptr, attn::Storage::Stages);
        for (std::size_t h = 0; h < s.heads.size(); ++h) {
            const attn::HeadStats ref = attn::head_stats(s.heads[h]);  // row_stats on masked rows
            ASSERT_EQ(ref.rows.size(), s.stats[h].rows.size());
            const auto near = [](double a, double b) {
                return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(a));
            };
            EXPECT_PRED2(near, ref.entropy, s.stats[h].entropy);
            EXPECT_PRED2(near, ref.score_mean, s.stats[h].score_mean);
            EXPECT_PRED2(near, ref.score_var, s.stats[h].score_var);
            EXPECT_PRED2(near, ref.mean_distance, s.stats[h].mean_distance);
            EXPECT_EQ(ref.max_weight, s.stats[h].max_weight);
            double largest = 0;
            for (const attn::RowStats& row : ref.rows)
                largest = std::max(largest, row.max_weight);
            EXPECT_EQ(largest, s.stats[h].largest_weight);
            EXPECT_EQ(s.stats[h].largest_weight, double(s.heads[h].weights.maxCoeff()));
            for (std::size_t i = 0; i < ref.rows.size(); ++i)
                EXPECT_PRED2(near, ref.rows[i].entropy, s.stats[h].rows[i].entropy) << i;
            // The scene's accessors read the derived rows.
            for (Index i : {Index(0), Index(35), Index(69)}) {
                EXPECT_EQ(s.masked_row(Index(h), i), s.heads[h].masked_row(i));
                EXPECT_EQ(s.scaled_row(Index(h), i), s.heads[h].scaled_row(i));
                for (Index j = 0; j < 70; ++j)
                    EXPECT_EQ(s.is_masked(Index(h), i, j), s.heads[h].masked_at(i, j) == kNegInf);
            }
        }
    }
}

TEST(HeadDerived, NothingButRawWeightsAndOutputIsHeldPerCell) {
    attn::SceneSpec spec;
    spec.mask.kind = attn::MaskKind::Causal;
    const attn::SceneResult s = attn::compute_scene(spec, nullptr, attn::Storage::Stages);
    const Index n = s.query_count();
    for (const attn::HeadResult& h : s.heads) {
        // The header has no scaled or masked member any more; what a head holds per cell:
        EXPECT_EQ(h.raw.size() + h.weights.size(), 2 * n * n);
        EXPECT_TRUE(h.has_stages());
    }
    // A head whose scores were not kept cannot derive them, and says so.
    const attn::SceneResult w = attn::compute_scene(spec, nullptr, attn::Storage::Weights);
    EXPECT_THROW(w.heads[0].masked_row(0), attn::ArgumentError);
    EXPECT_EQ(w.heads[0].scaled_matrix().size(), 0);
}

}  // namespace
