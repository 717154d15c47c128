// The words of the controls' layer scope (attn/model/scope_text.hpp) and what a model run takes
// with it (without_run_state): the rule the banner, the undo step and a model switch share.
#include <gtest/gtest.h>

#include "attn/scene/scope_text.hpp"
#include "attn/scene/spec_edit.hpp"

namespace attn::model {
namespace {

TEST(ScopeText, PhraseCountsLayersFromOne) {
    EXPECT_EQ(scope_phrase({}), "in every layer");
    EXPECT_EQ(scope_phrase({1}), "in layer 2 only");
    EXPECT_EQ(scope_phrase({3, 1}), "in layers 2 and 4 only");
    EXPECT_EQ(scope_phrase({0, 1, 3, 1}), "in layers 1, 2 and 4 only");
}

TEST(ScopeText, OwnControlsNameTheFamilysMask) {
    ModelInfo info;
    info.causal = true;
    EXPECT_EQ(own_controls_text(info), "scaled, τ = 1, causal");
    info.sliding_window = 4096;
    EXPECT_EQ(own_controls_text(info), "scaled, τ = 1, causal, a window of 4096 keys");
    info.causal = false;
    EXPECT_EQ(own_controls_text(info), "scaled, τ = 1, bidirectional");
}

TEST(ScopeText, NoNoteOutsideAModelRun) {
    SceneSpec spec;
    spec.model_layers = {1};
    EXPECT_EQ(scope_note(spec, 0), "");
}

TEST(ScopeText, ARunsStateGoesWithIt) {
    SceneSpec spec;
    spec.model_ids = {1, 2};
    spec.model_layers = {1};
    spec.model_rotary = false;
    spec.interventions.ablated = {{attn::model::kSingleStack, 2, 6}};
    spec.interventions.knockouts = {{{attn::model::kSingleStack, 0, 1}, 2, 0}};
    spec.temperature = 0.5f;
    const SceneSpec out = without_run_state(spec);
    EXPECT_TRUE(out.model_ids.empty());
    EXPECT_TRUE(out.model_layers.empty());
    EXPECT_TRUE(out.model_rotary);
    EXPECT_TRUE(out.interventions.empty());
    EXPECT_EQ(out.temperature, 0.5f);  // the controls stay: only the run's state goes
}

}  // namespace
}  // namespace attn::model
