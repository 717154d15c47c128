// AttnScope — the identities of core's interventions on gpt2_tiny.py's tiny random GPT-2 (3
// layers): the lens's last row is the logits; attributions sum to the logit; zero-ablating
// every head of a layer leaves only its output bias; mean ablation and knockout do what they
// say; the clean residual stream after the last layer restores exactly 1.0; run_from's patched
// runs equal whole runs with the same hook (brute force); patching's stability threshold
// (unstable_span) at its boundary and the logit spread a result carries. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../io_test_util.hpp"
#include "attn/interventions/attribution.hpp"
#include "attn/interventions/capture.hpp"
#include "attn/interventions/induction.hpp"
#include "attn/interventions/lens.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/io/session/session.hpp"
#include "attn/models/gpt2/model.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Index;
using attn::Matrix;
namespace interv = attn::interv;
namespace model = attn::model;

/// gpt2_tiny.py's folder (seed 11, 3 layers of 2 heads, d 8, vocabulary 258, 16 positions).
class Interventions : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new io_test::TempDir;
        const std::string command =
            "/usr/bin/python3 " ATTN_GPT2_TINY " " + dir_->path.string() + " 11 3 > /dev/null";
        ASSERT_EQ(std::system(command.c_str()), 0) << command;
        folder_ = new model::ModelFolder(attn::gpt2::open_folder(dir_->path.string()));
    }
    static void TearDownTestSuite() {
        delete folder_;
        delete dir_;
    }
    static const model::Model& m() { return *folder_->model; }
    static inline const std::vector<std::int32_t> ids{116, 256, 32, 99, 97, 116, 32, 115};
    static inline io_test::TempDir* dir_ = nullptr;
    static inline model::ModelFolder* folder_ = nullptr;
};

double rel(double got, double want) {
    return std::abs(got - want) / std::max(1.0, std::abs(want));
}

TEST_F(Interventions, TheLensLastRowIsTheLogitsAndItsFirstRowTheEmbeddingsLogits) {
    const model::Run run = model::run(m(), ids);
    const Matrix lens = interv::lens_logits(m(), run);
    ASSERT_EQ(lens.rows(), 4);
    ASSERT_EQ(lens.cols(), 258);
    const float scale = run.logits.cwiseAbs().maxCoeff();
    EXPECT_LE((lens.row(3).transpose() - run.logits).cwiseAbs().maxCoeff(), 1e-5f * scale);
    const Matrix first = run.inputs[0].row(7);
    EXPECT_LE((lens.row(0).transpose() - m().logits(first)).cwiseAbs().maxCoeff(), 1e-5f * scale);
    // The table's cells are the top tokens of the lens at their position.
    const interv::LensTable table = interv::lens_table(m(), run);
    Index best = 0;
    run.logits.maxCoeff(&best);
    EXPECT_EQ(table.at(3, 7).ids[0], best);
    const Matrix at2 = interv::lens_logits(m(), run, 2);
    at2.row(1).maxCoeff(&best);
    EXPECT_EQ(table.at(1, 2).ids[0], best);
    EXPECT_THROW(interv::lens_logits(m(), run, 8), attn::ArgumentError);
}

TEST_F(Interventions, AttributionsSumToTheLogit) {
    for (const bool ablate : {false, true}) {
        model::RunControls c;
        if (ablate) c.interventions.ablated = {{attn::model::kSingleStack, 1, 0}};
        for (const std::int32_t token : {0, 116, 257}) {
            const interv::Attribution a = interv::attribute(m(), ids, token, c);
            EXPECT_LE(rel(a.total(), a.logit), 1e-4) << token << " " << a.total() << " " << a.logit;
            EXPECT_EQ(a.heads.rows(), 3);
            EXPECT_EQ(a.heads.cols(), 2);
            if (ablate) {
                EXPECT_NEAR(a.heads(1, 0), 0.f, 1e-6f);
            }
        }
    }
    EXPECT_THROW(interv::attribute(m(), ids, 258), attn::ArgumentError);
}

TEST_F(Interventions, ZeroAblatingEveryHeadOfALayerLeavesOnlyItsOutputBias) {
    model::RunControls c;
    c.interventions.ablated = {{attn::model::kSingleStack, 1, 0},
                               {attn::model::kSingleStack, 1, 1}};
    interv::CaptureHooks capture(m().info());
    model::run(m(), ids, c, &capture);
    const Matrix& out = capture.attn_of(1);
    const attn::Vector bias = m().attention_bias(1);
    ASSERT_EQ(out.rows(), Index(ids.size()));
    for (Index i = 0; i < out.rows(); ++i)
        EXPECT_LE((out.row(i).transpose() - bias).cwiseAbs().maxCoeff(), 1e-6f) << i;
    // Layer 0 is untouched, so its block output is not the bias alone.
    EXPECT_GT((capture.attn_of(0).row(3).transpose() - m().attention_bias(0)).norm(), 1e-3f);
}

TEST_F(Interventions, MeanAblationGivesEveryPositionTheMeanOutput) {
    interv::CaptureHooks plain(m().info()), ablated(m().info());
    model::run(m(), ids, {}, &plain);
    model::RunControls c;
    c.interventions.ablated = {{attn::model::kSingleStack, 0, 1}};
    c.interventions.ablation = model::AblationMode::Mean;
    model::run(m(), ids, c, &ablated);
    const Matrix mean = plain.z_of(0, 1).colwise().mean();
    for (Index i = 0; i < Index(ids.size()); ++i)
        EXPECT_LE((ablated.z_of(0, 1).row(i) - mean).cwiseAbs().maxCoeff(), 1e-6f);
    EXPECT_LE((ablated.z_of(0, 0) - plain.z_of(0, 0)).cwiseAbs().maxCoeff(), 0.f);
}

TEST_F(Interventions, AKnockoutRemovesOneEdgeAndRenormalisesItsRow) {
    const model::Run plain = model::run(m(), ids);
    model::RunControls c;
    c.interventions.knockouts = {{{attn::model::kSingleStack, 0, 1}, 5, 2}};
    const model::Run ko = model::run(m(), ids, c);
    const Matrix& before = plain.layers[0].heads[1].weights;
    const Matrix& after = ko.layers[0].heads[1].weights;
    EXPECT_EQ(after(5, 2), 0.f);
    for (Index j = 0; j < 8; ++j)
        if (j != 2) {
            EXPECT_NEAR(after(5, j), before(5, j) / (1.f - before(5, 2)), 1e-6f) << j;
        }
    EXPECT_LE((after.row(4) - before.row(4)).cwiseAbs().maxCoeff(), 0.f);
    // The output is recomputed from the changed weights, and the logits change.
    const Matrix v = ko.layers[0].v[1];
    EXPECT_LE((ko.layers[0].heads[1].output.row(5) - after.row(5) * v).cwiseAbs().maxCoeff(),
              1e-6f);
    EXPECT_GT((ko.logits - plain.logits).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST_F(Interventions, RunFromWithoutHooksIsTheRunItself) {
    const model::Run run = model::run(m(), ids);
    for (int l = 0; l <= 3; ++l) {
        const model::Run again = model::run_from(m(), run, l);
        EXPECT_LE((again.logits - run.logits).cwiseAbs().maxCoeff(), 1e-6f) << l;
        EXPECT_NEAR(interv::logit_diff(m(), again, 5, 9), run.logits[5] - run.logits[9], 1e-4);
    }
}

class PatchingTest : public Interventions {
  protected:
    static interv::PatchSpec spec() {
        interv::PatchSpec s;
        s.clean = ids;
        s.corrupt = {116, 256, 32, 100, 111, 103, 32, 115};
        s.answer = 116;
        s.wrong = 99;
        return s;
    }
};

TEST_F(PatchingTest, TheCleanStreamAfterTheLastLayerRestoresExactlyOne) {
    const interv::PatchSpec s = spec();
    const model::Run clean = model::run(m(), s.clean), corrupt = model::run(m(), s.corrupt);
    interv::ResidPatch all(3, {}, clean.inputs[3], 3);
    const model::Run patched = model::run_from(m(), corrupt, 3, &all);
    const double cd = interv::logit_diff(m(), clean, s.answer, s.wrong);
    const double xd = interv::logit_diff(m(), corrupt, s.answer, s.wrong);
    EXPECT_EQ((interv::logit_diff(m(), patched, s.answer, s.wrong) - xd) / (cd - xd), 1.0);
    const interv::PatchResult r = interv::patch(m(), s);
    ASSERT_EQ(r.resid.rows(), 4);
    ASSERT_EQ(r.resid.cols(), 8);
    EXPECT_EQ(r.resid(3, 7), 1.f);
    for (Index p = 0; p < 7; ++p)
        EXPECT_EQ(r.resid(3, p), 0.f) << p;
    // Entering layer 0 at every position that differs restores all of it too (the positions
    // that are equal in both prompts change nothing).
    interv::ResidPatch embed(0, {}, clean.inputs[0], 3);
    EXPECT_NEAR(
        (interv::logit_diff(m(), model::run_from(m(), corrupt, 0, &embed), s.answer, s.wrong) -
         xd) /
            (cd - xd),
        1.0, 1e-5);
    EXPECT_EQ(r.resid(0, 0), 0.f);
}

TEST_F(PatchingTest, EveryPatchedRunEqualsAWholeRunWithTheSameHook) {
    const interv::PatchSpec s = spec();
    const interv::PatchResult r = interv::patch(m(), s);
    interv::CaptureHooks capture(m().info());
    model::run(m(), s.clean, {}, &capture);
    const model::Run clean = model::run(m(), s.clean);
    const double span = r.clean_diff - r.corrupt_diff;
    for (int l = 0; l < 3; ++l) {
        for (int h = 0; h < 2; ++h) {
            interv::HeadPatch hook(l, h, capture.z_of(l, h));
            const model::Run whole = model::run(m(), s.corrupt, {}, &hook);
            const double want =
                (whole.logits[s.answer] - whole.logits[s.wrong] - r.corrupt_diff) / span;
            EXPECT_NEAR(r.heads(l, h), want, 1e-4) << l << "." << h;
        }
        for (Index p = 0; p < 8; ++p) {
            interv::ResidPatch hook(l, {p}, clean.inputs[std::size_t(l)], 3);
            const model::Run whole = model::run(m(), s.corrupt, {}, &hook);
            const double want =
                (whole.logits[s.answer] - whole.logits[s.wrong] - r.corrupt_diff) / span;
            EXPECT_NEAR(r.resid(l, p), want, 1e-4) << l << "," << p;
        }
    }
}

TEST_F(PatchingTest, UnequalLengthsAreRefusedNamingBoth) {
    interv::PatchSpec s = spec();
    s.corrupt.pop_back();
    try {
        interv::patch(m(), s);
        FAIL() << "unequal lengths were patched";
    } catch (const attn::ArgumentError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("8 tokens"), std::string::npos) << what;
        EXPECT_NE(what.find("corrupted one 7"), std::string::npos) << what;
    }
    s = spec();
    s.corrupt = s.clean;
    EXPECT_THROW(interv::patch(m(), s), attn::ArgumentError);
}

TEST(PatchingStability, TheThresholdIsAFifthOfTheLogitSpread) {
    EXPECT_EQ(interv::kUnstableSpanFraction, 0.2);
    // The audit's Qwen case: clean 1.2984, corrupted 1.4105 (−0.1121) against a spread of 2.
    EXPECT_TRUE(interv::unstable_span(1.2984, 1.4105, 2.0));
    // An IOI-sized difference (7 logits) is far above it.
    EXPECT_FALSE(interv::unstable_span(3.5, -3.5, 3.0));
    // At the boundary: 0.5 = 0.2 × 2.5 (exact in binary) is stable, just under it is not; the
    // sign does not matter.
    EXPECT_FALSE(interv::unstable_span(0.5, 0.0, 2.5));
    EXPECT_FALSE(interv::unstable_span(0.0, 0.5, 2.5));
    EXPECT_TRUE(interv::unstable_span(0.4999, 0.0, 2.5));
    // Nothing to restore, or numbers that are not numbers, are never stable.
    EXPECT_TRUE(interv::unstable_span(1.0, 1.0, 0.0));
    EXPECT_TRUE(interv::unstable_span(std::numeric_limits<double>::quiet_NaN(), 0.0, 1.0));
    EXPECT_TRUE(interv::unstable_span(std::numeric_limits<double>::infinity(), 0.0, 1.0));
}

TEST_F(PatchingTest, TheResultCarriesTheCleanLogitsSpreadAndSaysWhetherItIsStable) {
    const model::Model& mm = m();
    interv::PatchSpec s;
    s.clean = {116, 104, 101, 32, 99, 97, 116, 32, 115, 97, 116};      // "the cat sat"
    s.corrupt = {116, 104, 101, 32, 100, 111, 103, 32, 115, 97, 116};  // "the dog sat"
    s.heads = false;
    const attn::model::Run clean = model::run(mm, s.clean);
    double mean = 0, square = 0;
    for (attn::Index i = 0; i < clean.logits.size(); ++i)
        mean += clean.logits[i];
    mean /= double(clean.logits.size());
    for (attn::Index i = 0; i < clean.logits.size(); ++i)
        square += (clean.logits[i] - mean) * (clean.logits[i] - mean);
    const double spread = std::sqrt(square / double(clean.logits.size()));
    ASSERT_GT(spread, 0.1);
    int stable = 0, unstable = 0;
    for (const auto& [answer, wrong] : std::vector<std::pair<int, int>>{
             {42, 114}, {5, 7}, {97, 116}, {115, 32}, {100, 99}, {111, 97}}) {
        s.answer = answer;
        s.wrong = wrong;
        const interv::PatchResult r = interv::patch(mm, s);
        EXPECT_NEAR(r.logit_scale, spread, 1e-5 * spread);
        EXPECT_EQ(r.unstable(), interv::unstable_span(r.clean_diff, r.corrupt_diff, spread));
        EXPECT_EQ(r.unstable(), std::abs(r.clean_diff - r.corrupt_diff) < 0.2 * spread);
        (r.unstable() ? unstable : stable) += 1;
    }
    // The tiny model has answers of both kinds for these prompts.
    EXPECT_GT(stable, 0);
    EXPECT_GT(unstable, 0);
}

/// Cancels once the fraction passes a threshold; keeps every fraction reported.
class CancelAt : public attn::Progress {
  public:
    explicit CancelAt(double at) : at_(at) {}
    void update(double f) override { seen.push_back(f); }
    bool cancelled() const override { return !seen.empty() && seen.back() >= at_; }
    std::vector<double> seen;

  private:
    double at_;
};

// The patched runs share the threads, so a report may jump over several runs other threads
// finished: reports only never decrease, end at 1, and a cancel is thrown once one passes the
// threshold (how far past it depends on the threads' timing, so it is not asserted).
TEST_F(PatchingTest, PatchingReportsProgressAndCancels) {
    CancelAt never(2.0);
    interv::patch(m(), spec(), &never);
    ASSERT_GE(never.seen.size(), 3u);
    EXPECT_EQ(never.seen.front(), 0.0);
    EXPECT_EQ(never.seen.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(never.seen.begin(), never.seen.end()));
    CancelAt half(0.5);
    EXPECT_THROW(interv::patch(m(), spec(), &half), attn::Cancelled);
    ASSERT_FALSE(half.seen.empty());
    EXPECT_GE(half.seen.back(), 0.5);
    EXPECT_TRUE(std::is_sorted(half.seen.begin(), half.seen.end()));
    CancelAt at_once(0.0);
    EXPECT_THROW(interv::patch(m(), spec(), &at_once), attn::Cancelled);
    EXPECT_EQ(at_once.seen, std::vector<double>{0.0});  // refused before the clean run
}

TEST_F(Interventions, TheInductionSequenceRepeatsItsSeededTokens) {
    const interv::InductionSequence a = interv::induction_sequence(258, 6, 42, 0);
    const interv::InductionSequence b = interv::induction_sequence(258, 6, 42, 0);
    ASSERT_EQ(a.ids.size(), 13u);
    EXPECT_EQ(a.ids, b.ids);
    EXPECT_EQ(a.ids[0], 0);
    EXPECT_EQ(a.start, 1);
    for (int i = 1; i <= 6; ++i)
        EXPECT_EQ(a.ids[std::size_t(i)], a.ids[std::size_t(i + 6)]);
    EXPECT_NE(interv::induction_sequence(258, 6, 43).ids,
              interv::induction_sequence(258, 6, 42).ids);
    // The score is the mean of the stripe's weights, computed here by hand for one head.
    const model::Run run = model::run(m(), a.ids);
    const Matrix s = interv::induction_scores(run, a);
    const Matrix& w = run.layers[2].heads[1].weights;
    double sum = 0;
    for (Index i = 7; i <= 12; ++i)
        sum += w(i, i - 5);
    EXPECT_NEAR(s(2, 1), sum / 6, 1e-6);
}

TEST_F(Interventions, AHeadsOwnPatternRanksItFirst) {
    const model::Run run = model::run(m(), ids);
    const Matrix pattern = run.layers[1].heads[0].weights;
    const auto ranked = interv::rank_heads(m(), run, pattern);
    ASSERT_EQ(ranked.size(), 6u);
    EXPECT_EQ(ranked[0].layer, 1);
    EXPECT_EQ(ranked[0].head, 0);
    EXPECT_NEAR(ranked[0].score, 1.0, 1e-6);
    EXPECT_GE(ranked[0].score, ranked[5].score);
    EXPECT_THROW(interv::rank_heads(m(), run, Matrix::Zero(8, 8)), attn::ArgumentError);
    EXPECT_THROW(interv::rank_heads(m(), run, Matrix::Ones(7, 8)), attn::ArgumentError);
}

TEST_F(Interventions, ASiteOfAnotherComponentThanTheStackIsRefusedByName) {
    // A model of one stack counts its heads as kSingleStack's (Decoder): a cross head is none.
    model::RunControls c;
    c.interventions.knockouts = {{{model::Component::Cross, 0, 1}, -1, 2}};
    try {
        model::run(m(), ids, c);
        FAIL() << "a cross-attention knockout ran on GPT-2";
    } catch (const attn::ArgumentError& e) {
        EXPECT_STREQ(e.what(), "knockout cross.0.1:-1>2 is outside the model");
    }
    c.interventions.knockouts = {{{model::kSingleStack, 0, 1}, -1, 2}};
    EXPECT_NO_THROW(model::run(m(), ids, c));
}

TEST(InterventionsSession, TheModelsInterventionsRoundTripAndOldSessionsHaveNone) {
    attn::io::Session s;
    s.model_path = "/models/tiny";
    const std::string plain = attn::io::session_to_json(s);
    EXPECT_EQ(plain.find("interventions"), std::string::npos);
    EXPECT_TRUE(attn::io::parse_session(plain, "old").spec.interventions.empty());
    s.spec.interventions.ablated = {{attn::model::kSingleStack, 0, 1},
                                    {attn::model::kSingleStack, 2, 3}};
    s.spec.interventions.ablation = model::AblationMode::Mean;
    s.spec.interventions.knockouts = {{{attn::model::kSingleStack, 1, 0}, -1, 2},
                                      {{attn::model::kSingleStack, 1, 1}, 5, 3}};
    const std::string text = attn::io::session_to_json(s);
    EXPECT_EQ(attn::io::parse_session(text, "s").spec.interventions, s.spec.interventions);
    // A malformed entry is refused naming where it is.
    std::string bad = text;
    bad.replace(bad.find("\"mean\""), 6, "\"half\"");
    try {
        attn::io::parse_session(bad, "bad.attnscope");
        FAIL() << "a bad ablation mode was read";
    } catch (const attn::FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("model.interventions.ablation"), std::string::npos)
            << e.what();
    }
}

}  // namespace
