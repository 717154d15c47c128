// Head census: hand-built heads, the labelling rule, and the real GPT-2 and DistilBERT fixtures.
#include "attn/analysis/census.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "../io_test_util.hpp"
#include "attn/io/load.hpp"
#include "attn/util/error.hpp"

using namespace attn;

namespace {

std::vector<std::string> letters(const std::string& s) {
    std::vector<std::string> out;
    for (char c : s)
        out.emplace_back(1, c);
    return out;
}

/// Causal uniform weights: query i spreads 1/(i+1) over keys 0…i.
Matrix causal_uniform(Index n) {
    Matrix a = Matrix::Zero(n, n);
    for (Index i = 0; i < n; ++i)
        a.row(i).head(i + 1).setConstant(1.f / static_cast<float>(i + 1));
    return a;
}

BoolMatrix causal_visible(Index n) {
    BoolMatrix v(n, n);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j)
            v(i, j) = j <= i;
    return v;
}

SceneSpec data_spec(const std::string& file, Index component) {
    SceneSpec spec;
    spec.data = std::make_shared<const AttentionData>(io::load_attention(io_test::real(file)));
    spec.component = component;
    return spec;
}

}  // namespace

TEST(Census, PreviousTokenHeadIsNotLocal) {
    // All weight on the previous token: local is 1 as well, the specific pattern wins.
    Matrix a = Matrix::Zero(5, 5);
    a(0, 0) = 1;
    for (Index i = 1; i < 5; ++i)
        a(i, i - 1) = 1;
    const HeadCensus c = census_head(a, letters("abcde"), causal_visible(5));
    EXPECT_DOUBLE_EQ(c.score(HeadPattern::PreviousToken), 1.0);
    EXPECT_DOUBLE_EQ(c.score(HeadPattern::Local), 1.0);
    EXPECT_DOUBLE_EQ(c.score(HeadPattern::Self), 0.0);
    EXPECT_DOUBLE_EQ(c.score(HeadPattern::Broad), 0.0);
    EXPECT_TRUE(std::isnan(c.score(HeadPattern::Induction)));  // no token repeats
    EXPECT_EQ(c.label, HeadPattern::PreviousToken);
}

TEST(Census, SelfFirstTokenAndBroadHeads) {
    const Matrix eye = Matrix::Identity(4, 4);
    EXPECT_EQ(census_head(eye, letters("abcd")).label, HeadPattern::Self);
    Matrix first = Matrix::Zero(4, 4);
    first.col(0).setOnes();
    const HeadCensus f = census_head(first, letters("abcd"), causal_visible(4));
    EXPECT_DOUBLE_EQ(f.score(HeadPattern::FirstToken), 1.0);
    // Row 0 has one visible key and does not count: self is over rows 1…3, all 0.
    EXPECT_DOUBLE_EQ(f.score(HeadPattern::Self), 0.0);
    EXPECT_EQ(f.label, HeadPattern::FirstToken);
    const HeadCensus u = census_head(causal_uniform(6), letters("abcdef"), causal_visible(6));
    EXPECT_NEAR(u.score(HeadPattern::Broad), 1.0, 1e-6);
    // Local mass of rows 1…5: 1, 1, 3/4, 3/5, 3/6.
    EXPECT_NEAR(u.score(HeadPattern::Local), (1 + 1 + 0.75 + 0.6 + 0.5) / 5, 1e-6);
    EXPECT_NEAR(u.score(HeadPattern::Self), (1. / 2 + 1. / 3 + 1. / 4 + 1. / 5 + 1. / 6) / 5, 1e-6);
    EXPECT_EQ(u.label, HeadPattern::Broad);
}

TEST(Census, InductionOnARepeatedSequence) {
    // "abcabc": queries 3, 4, 5 repeat tokens 0, 1, 2; their targets are keys 1, 2, 3.
    const Index n = 6;
    Matrix a = causal_uniform(n);
    for (Index i = 3; i < n; ++i) {
        a.row(i).setZero();
        a(i, i - 2) = 1;
    }
    const HeadCensus c = census_head(a, letters("abcabc"), causal_visible(n));
    EXPECT_DOUBLE_EQ(c.score(HeadPattern::Induction), 1.0);
    EXPECT_EQ(c.label, HeadPattern::Induction);
    // A token repeated right after itself points at the query: not an induction target.
    const HeadCensus d = census_head(causal_uniform(3), letters("abb"), causal_visible(3));
    EXPECT_TRUE(std::isnan(d.score(HeadPattern::Induction)));
}

TEST(Census, InductionTargetFollowsTheLatestEarlierOccurrence) {
    // "a b a c a": query 2 repeats token 0, so its target is key 1; query 4 repeats tokens 0
    // and 2, and the latest of them (2) makes key 3 its target, not key 1. By hand:
    // (A(2, 1) + A(4, 3)) / 2 = (0.7 + 0.6) / 2 = 0.65; the first occurrence would give
    // (0.7 + 0.2) / 2 = 0.45 and every earlier occurrence (0.7 + (0.2 + 0.6) / 2) / 2 = 0.55.
    Matrix a = Matrix::Zero(5, 5);
    a.row(0) << 1, 0, 0, 0, 0;
    a.row(1) << 0.5f, 0.5f, 0, 0, 0;
    a.row(2) << 0.2f, 0.7f, 0.1f, 0, 0;
    a.row(3) << 0.25f, 0.25f, 0.25f, 0.25f, 0;
    a.row(4) << 0.1f, 0.2f, 0.05f, 0.6f, 0.05f;
    const HeadCensus c = census_head(a, letters("abaca"), causal_visible(5));
    EXPECT_NEAR(c.score(HeadPattern::Induction), (0.7 + 0.6) / 2, 1e-7);
    // Query 4's weights on keys 1 and 3 swapped: the score follows key 3's weight, now 0.2.
    Matrix moved = a;
    moved(4, 1) = 0.6f, moved(4, 3) = 0.2f;
    EXPECT_NEAR(
        census_head(moved, letters("abaca"), causal_visible(5)).score(HeadPattern::Induction),
        (0.7 + 0.2) / 2, 1e-7);
    // "a a b a": query 3's latest earlier occurrence is 1, so the target is key 2; query 1 repeats
    // token 0 right after it and has none. The score is A(3, 2) alone.
    Matrix b = causal_uniform(4);
    b.row(3) << 0.1f, 0.3f, 0.4f, 0.2f;
    EXPECT_NEAR(census_head(b, letters("aaba"), causal_visible(4)).score(HeadPattern::Induction),
                0.4, 1e-7);
}

TEST(Census, LabelRuleTiesAndClearScores) {
    const double nan = std::nan("");
    // previous-token 0.92 is within 0.1 of local 0.98: the more specific pattern wins.
    EXPECT_EQ(census_label({0.92, 0.01, 0.02, 0.98, 0.1, nan}), HeadPattern::PreviousToken);
    // previous-token 0.7 is not: local.
    EXPECT_EQ(census_label({0.7, 0.01, 0.02, 0.98, 0.1, nan}), HeadPattern::Local);
    // Nothing reaches 0.5: mixed.
    EXPECT_EQ(census_label({0.3, 0.2, 0.1, 0.45, 0.4, nan}), HeadPattern::Mixed);
    EXPECT_STREQ(pattern_name(HeadPattern::FirstToken), "first-token");
    EXPECT_EQ(pattern_column(HeadPattern::PreviousToken), "previous_token");
}

TEST(Census, RejectsNonSquareInput) {
    EXPECT_THROW(census_head(Matrix::Zero(2, 3), letters("ab")), ShapeError);
    SceneSpec cross;
    cross.text = "a b c";
    cross.cross_text = "x y";
    EXPECT_THROW(census(cross), ArgumentError);
}

TEST(Census, Gpt2FixtureHasItsPreviousTokenHeadAtLayer4Head11) {
    // Found with numpy: mean over i ≥ 1 of attention[4, 11, i, i−1] = 0.99986 (the highest of
    // all 144 heads; the next is layer 2 head 2 at 0.683).
    for (Index component : {Index(0), Index(1)}) {  // raw scores under the causal mask; weights
        SceneSpec spec = data_spec("gpt2_small_ex0.npz", component);
        spec.mask.kind = MaskKind::Causal;
        const Census c = census(spec);
        ASSERT_EQ(c.layers, 12);
        ASSERT_EQ(c.heads, 12);
        const HeadCensus& h = c.at(4, 11);
        EXPECT_EQ(h.label, HeadPattern::PreviousToken);
        EXPECT_NEAR(h.score(HeadPattern::PreviousToken), 0.9998573, 2e-5);
        Index best = -1;
        double top = -1;
        for (const HeadCensus& e : c.entries)
            if (e.score(HeadPattern::PreviousToken) > top)
                top = e.score(HeadPattern::PreviousToken), best = e.layer * 12 + e.head;
        EXPECT_EQ(best, 4 * 12 + 11);
        EXPECT_NEAR(c.at(2, 2).score(HeadPattern::PreviousToken), 0.6835, 1e-3);
    }
}

TEST(Census, DistilbertFixtureInductionIsTheWeightOnCat) {
    // "[CLS] the cat sat on the mat [SEP]": the second "the" (query 5) repeats token 1, so its
    // induction target is key 2 ("cat"); it is the only such query. numpy: attn[3][5][5][2].
    const Census c = census(data_spec("bertviz_distilbert_headview.json", 0));
    ASSERT_EQ(c.layers, 6);
    EXPECT_NEAR(c.at(3, 5).score(HeadPattern::Induction), 0.279, 1e-3);
    EXPECT_NEAR(c.at(4, 7).score(HeadPattern::Induction), 0.282, 1e-3);
}
