// AttnScope — interventions on encoder–decoders (issue #40) by identity, on a tiny random Marian
// folder written by tests/cli/seq2seq_tiny.py: a head patched from the same run changes nothing,
// mean-ablating a head whose output is constant (cross-attention over a one-token source) equals
// no ablation, a knockout that removes nothing (a key a query cannot see) equals the clean run,
// and the logit lens' last row set is the run's logits. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

#include "../test_util.hpp"
#include "attn/interventions/capture.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/interventions/seq2seq_lens.hpp"
#include "attn/interventions/seq2seq_patching.hpp"
#include "attn/models/seq2seq.hpp"

namespace {

using attn::Matrix;
using attn::model::Component;
using attn::model::Seq2SeqControls;
namespace fs = std::filesystem;

/// A tiny Marian folder (2 + 2 layers, 4 heads, d 16), opened once for the suite.
class Seq2SeqInterventions : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new fs::path(fs::temp_directory_path() /
                            ("attn_s2s_interventions_" + std::to_string(::getpid())));
        testutil::capture(
            "/usr/bin/python3 -c \"import sys; sys.path.insert(0, '" ATTN_TEST_DATA_DIR
            "/../../cli'); import seq2seq_tiny as t; t.marian_folder(sys.argv[1], "
            "5)\" " +
            dir_->string());
        folder_ = new attn::model::Seq2SeqFolder(attn::model::open_seq2seq(dir_->string()));
        kTarget[0] = folder_->model->info().decoder_start;
    }
    static void TearDownTestSuite() {
        delete folder_;
        fs::remove_all(*dir_);
        delete dir_;
    }
    static const attn::model::Seq2SeqModel& model() { return *folder_->model; }
    /// A teacher-forced run's logits under CONTROLS, with HOOKS.
    static Matrix logits(const std::vector<std::int32_t>& source, const Seq2SeqControls& controls,
                         const attn::model::Seq2SeqHooks* hooks = nullptr) {
        return attn::model::teacher_forced(model(), source, kTarget, controls, hooks).logits;
    }
    static double scale(const Matrix& m) { return std::max(1.0, double(m.cwiseAbs().maxCoeff())); }

    static inline const std::vector<std::int32_t> kSource = {3, 7, 9, 4, 12, 0};
    static inline std::vector<std::int32_t> kTarget = {5, 8, 2, 11, 6};
    static inline fs::path* dir_ = nullptr;
    static inline attn::model::Seq2SeqFolder* folder_ = nullptr;
};

TEST_F(Seq2SeqInterventions, PatchingAHeadFromTheSameRunChangesNothing) {
    const Seq2SeqControls none;
    const Matrix clean = logits(kSource, none);
    for (const Component part : {Component::Encoder, Component::Decoder, Component::Cross}) {
        // The clean run's z of head 1 of layer 1, captured, then put back into the same run.
        attn::model::ModelInfo sized;
        sized.layers = 2;
        sized.heads = model().info().heads;
        attn::interv::CaptureHooks capture(sized);
        attn::model::Seq2SeqHooks hooks;
        (part == Component::Encoder   ? hooks.encoder
         : part == Component::Decoder ? hooks.decoder
                                      : hooks.cross) = &capture;
        EXPECT_LT((logits(kSource, none, &hooks) - clean).cwiseAbs().maxCoeff(),
                  1e-6 * scale(clean));
        attn::interv::HeadPatch patch(1, 1, capture.z_of(1, 1));
        (part == Component::Encoder   ? hooks.encoder
         : part == Component::Decoder ? hooks.decoder
                                      : hooks.cross) = &patch;
        EXPECT_LT((logits(kSource, none, &hooks) - clean).cwiseAbs().maxCoeff(),
                  1e-6 * scale(clean));
    }
    // The same source in both runs: every encoder head restores nothing (exactly 0), and a
    // decoder head of a different target restores a finite fraction.
    attn::interv::Seq2SeqPatchSpec spec;
    spec.clean_source = spec.corrupt_source = kSource;
    spec.clean_target = kTarget;
    spec.corrupt_target = {kTarget[0], 8, 2, 10, 6};
    spec.answer = 3;
    spec.wrong = 4;
    const attn::interv::Seq2SeqPatchResult r = attn::interv::seq2seq_patch(model(), spec);
    EXPECT_EQ(r.encoder.rows(), model().info().encoder_layers);
    EXPECT_EQ(r.cross.cols(), model().info().heads);
    EXPECT_LT(r.encoder.cwiseAbs().maxCoeff(), 1e-6f);
    EXPECT_TRUE(r.decoder.allFinite());
    EXPECT_GT(r.decoder.cwiseAbs().maxCoeff(), 0.f);
    // Clean and corrupted alike: nothing to restore, refused by name.
    spec.corrupt_target = spec.clean_target;
    EXPECT_THROW(attn::interv::seq2seq_patch(model(), spec), attn::ArgumentError);
    spec.corrupt_source = {3, 7, 9};
    EXPECT_THROW(attn::interv::seq2seq_patch(model(), spec), attn::ArgumentError);
}

TEST_F(Seq2SeqInterventions, MeanAblatingAConstantHeadEqualsNoAblation) {
    // One source token: every target query's cross-attention weight is 1 on it, so each cross
    // head's z is the same row at every position, and its mean is itself.
    const std::vector<std::int32_t> one = {7};
    const Matrix clean = logits(one, {});
    Seq2SeqControls mean;
    mean.ablate = {{Component::Cross, 0, 2}, {Component::Cross, 1, 0}};
    mean.ablation = attn::model::AblationMode::Mean;
    EXPECT_LT((logits(one, mean) - clean).cwiseAbs().maxCoeff(), 1e-5 * scale(clean));
    // Zero ablation of the same heads does change it, and so does the mean over a longer source
    // where the encoder's heads differ by position.
    Seq2SeqControls zero = mean;
    zero.ablation = attn::model::AblationMode::Zero;
    EXPECT_GT((logits(one, zero) - clean).cwiseAbs().maxCoeff(), 1e-3);
    Seq2SeqControls encoder;
    encoder.ablate = {{Component::Encoder, 1, 3}};
    encoder.ablation = attn::model::AblationMode::Mean;
    EXPECT_GT((logits(kSource, encoder) - logits(kSource, {})).cwiseAbs().maxCoeff(), 1e-4);
}

TEST_F(Seq2SeqInterventions, AKnockoutOfNothingEqualsTheCleanRun) {
    const Matrix clean = logits(kSource, {});
    // Query 1 of the decoder cannot see key 3 (causal): its weight is 0 already, and the row
    // renormalised over the keys left is the same row.
    Seq2SeqControls future;
    future.knockouts = {{{Component::Decoder, 0, 1}, 1, 3}, {{Component::Decoder, 1, 2}, -1, 9}};
    EXPECT_LT((logits(kSource, future) - clean).cwiseAbs().maxCoeff(), 1e-5 * scale(clean));
    Seq2SeqControls none;
    none.knockouts = {};
    EXPECT_LT((logits(kSource, none) - clean).cwiseAbs().maxCoeff(), 1e-6 * scale(clean));
    // A real edge of the cross-attention does change the run, and its weights show it removed.
    Seq2SeqControls cut;
    cut.knockouts = {{{Component::Cross, 1, 2}, -1, 0}};
    const attn::model::Seq2SeqRun r = attn::model::teacher_forced(model(), kSource, kTarget, cut);
    EXPECT_GT((r.logits - clean).cwiseAbs().maxCoeff(), 1e-5);
    EXPECT_EQ(r.cross[1][2].col(0).cwiseAbs().maxCoeff(), 0.f);
    EXPECT_NEAR(r.cross[1][2].row(2).sum(), 1.f, 1e-5f);
    // A knockout of a head the model lacks is refused by name.
    cut.knockouts = {{{Component::Cross, 2, 0}, -1, 0}};
    EXPECT_THROW(logits(kSource, cut), attn::ArgumentError);
}

TEST_F(Seq2SeqInterventions, TheLensLastRowIsTheRunsLogits) {
    const Matrix clean = logits(kSource, {});
    const std::vector<Matrix> lens =
        attn::interv::seq2seq_lens_logits(model(), kSource, kTarget, {});
    ASSERT_EQ(lens.size(), std::size_t(model().info().decoder_layers + 1));
    EXPECT_LT((lens.back() - clean).cwiseAbs().maxCoeff(), 1e-5 * scale(clean));
    EXPECT_GT((lens.front() - clean).cwiseAbs().maxCoeff(), 1e-3);
    const attn::interv::LensTable t = attn::interv::seq2seq_lens_table(lens);
    EXPECT_EQ(t.layers, attn::Index(lens.size()));
    EXPECT_EQ(t.positions, attn::Index(kTarget.size()));
    Eigen::Index top = 0;
    clean.row(2).maxCoeff(&top);
    EXPECT_EQ(t.at(t.layers - 1, 2).ids[0], std::int32_t(top));
}

}  // namespace
