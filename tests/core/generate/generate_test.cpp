// AttnScope — generation (attn::gen) on tiny random folders of each family: greedy decoding
// against numpy's chain of full recomputes (generate_reference.py), the key–value cache against
// a full recompute at every step, top-k = 1 and τ → 0 against greedy, seeded sampling repeating,
// stop ids, cancelling, and interventions applied at every step, for GPT-2 and the Llama family
// (llama, qwen2, qwen3). A family is a test parameter: another family joins by adding its writer
// to generate_reference.py and a row below.
// GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "../io_test_util.hpp"
#include "../test_util.hpp"
#include "attn/generate/generate.hpp"
#include "attn/io/session/session.hpp"
#include "attn/models/families.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/scene/spec_edit.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Index;
using attn::gen::GenerateOptions;
using attn::gen::Generation;
using attn::gen::StopReason;

/// A family's tiny folder: its name in generate_reference.py, the seed and layers it writes.
struct FamilyCase {
    const char* family;
    int seed, layers;
    std::vector<std::int32_t> prompt;
};

/// gtest's name for a case in failure messages (not the struct's bytes).
void PrintTo(const FamilyCase& c, std::ostream* os) {
    *os << c.family;
}

using testutil::capture;

std::string join(const std::vector<std::int32_t>& ids) {
    std::string s;
    // Appended piece by piece: GCC 12's -Wrestrict misfires on `"," + std::to_string(id)` at -O3.
    for (const std::int32_t id : ids) {
        if (!s.empty()) s += ',';
        s += std::to_string(id);
    }
    return s;
}

class Generate : public ::testing::TestWithParam<FamilyCase> {
  protected:
    void SetUp() override {
        const FamilyCase& c = GetParam();
        const std::string out =
            capture("/usr/bin/python3 " ATTN_GENERATE_REFERENCE " " + std::string(c.family) + " " +
                    dir_.path.string() + " " + std::to_string(c.seed) + " " +
                    std::to_string(c.layers) + " " + join(c.prompt) + " 64");
        ASSERT_FALSE(out.empty()) << "generate_reference.py wrote nothing";
        reference_ = nlohmann::json::parse(out);
        folder_ = attn::model::open_folder(dir_.path.string());
    }
    const attn::model::Model& model() const { return *folder_.model; }
    Generation generate(const GenerateOptions& o,
                        const std::function<void(const attn::gen::Step&)>& on_step = {}) const {
        return attn::gen::generate(model(), *folder_.tokenizer, GetParam().prompt, o, nullptr,
                                   on_step);
    }
    /// Greedy up to the model's last position.
    static GenerateOptions greedy() {
        GenerateOptions o;
        o.tokens = 64;
        return o;
    }
    io_test::TempDir dir_;
    nlohmann::json reference_;
    attn::model::ModelFolder folder_;
};

TEST_P(Generate, GreedyEqualsNumpysChainOfFullRecomputes) {
    const Generation g = generate(greedy());
    const auto ids = reference_["ids"].get<std::vector<std::int32_t>>();
    ASSERT_EQ(g.ids, ids);
    EXPECT_EQ(g.prompt, GetParam().prompt.size());
    EXPECT_EQ(g.stop, StopReason::Positions);  // 64 tokens do not fit: the model's end stops it
    EXPECT_EQ(Index(g.ids.size()), model().info().max_positions);
    ASSERT_EQ(g.logprobs.size(), ids.size());
    EXPECT_TRUE(std::isnan(g.logprobs[0]));  // nothing predicts the first token
    for (std::size_t i = 1; i < ids.size(); ++i)
        EXPECT_NEAR(g.logprobs[i], reference_["logprobs"][i].get<double>(), 1e-4)
            << "position " << i;
    // Every generated token was the most probable, and its probability is its log-probability.
    for (const attn::gen::Choice& c : g.choices) {
        EXPECT_EQ(c.top[0].id, c.id);
        EXPECT_FLOAT_EQ(c.top[0].logprob, c.logprob);
        EXPECT_EQ(c.kept, 1);
    }
}

/// At every step the cached run (only the new row computed) equals running every id afresh.
TEST_P(Generate, CacheEqualsFullRecomputeAtEveryStep) {
    attn::model::RunControls ablated;
    ablated.interventions.ablated = {{attn::model::kSingleStack, 0, 1}};
    ablated.interventions.knockouts = {{{attn::model::kSingleStack, 1, 0}, -1, 2}};
    for (const bool sampled : {false, true})
        for (const attn::model::RunControls& controls : {attn::model::RunControls{}, ablated}) {
            GenerateOptions o = greedy();
            o.tokens = 8;
            o.controls = controls;
            o.sampling.greedy = !sampled;
            o.sampling.temperature = 1.5f;
            o.sampling.seed = 5;
            int steps = 0;
            const Generation g = generate(o, [&](const attn::gen::Step& s) {
                const attn::model::Run& cached = *s.run;
                ASSERT_EQ(cached.reused, Index(cached.ids.size()) - 1) << "the step was recomputed";
                const attn::model::Run full = attn::model::run(model(), cached.ids, o.controls);
                EXPECT_EQ(full.reused, 0);
                const float scale = std::max(1.f, full.logits.cwiseAbs().maxCoeff());
                EXPECT_LE((cached.logits - full.logits).cwiseAbs().maxCoeff(), 1e-5f * scale)
                    << "step " << s.index;
                for (std::size_t l = 0; l < full.layers.size(); ++l)
                    for (std::size_t h = 0; h < full.layers[l].heads.size(); ++h) {
                        const auto& a = cached.layers[l].heads[h];
                        const auto& b = full.layers[l].heads[h];
                        EXPECT_LE((a.weights - b.weights).cwiseAbs().maxCoeff(), 1e-5f)
                            << "step " << s.index << " layer " << l << " head " << h;
                        EXPECT_LE((a.output - b.output).cwiseAbs().maxCoeff(), 1e-5f);
                        EXPECT_LE(
                            (cached.layers[l].k[h] - full.layers[l].k[h]).cwiseAbs().maxCoeff(),
                            1e-5f);
                    }
                const std::vector<float> lp = attn::gen::token_logprobs(model(), full);
                EXPECT_NEAR(lp.back(), s.choice.logprob, 1e-5) << "step " << s.index;
                ++steps;
            });
            EXPECT_EQ(steps, 8);
            EXPECT_EQ(g.choices.size(), 8u);
        }
}

TEST_P(Generate, TopKOneAndTemperatureToZeroEqualGreedy) {
    const Generation base = generate(greedy());
    for (const auto& [k, tau] : {std::pair{1, 1.f}, std::pair{0, 0.f}, std::pair{0, 1e-7f},
                                 std::pair{0, 1e-3f}, std::pair{1, 3.f}}) {
        GenerateOptions o = greedy();
        o.sampling.greedy = false;
        o.sampling.top_k = k;
        o.sampling.temperature = tau;
        o.sampling.seed = 99;
        EXPECT_EQ(generate(o).ids, base.ids) << "top-k " << k << ", τ " << tau;
    }
}

TEST_P(Generate, SeededSamplingRepeatsExactly) {
    GenerateOptions o = greedy();
    o.sampling.greedy = false;
    o.sampling.temperature = 3.f;  // flat: different seeds cannot agree by chance for long
    o.sampling.seed = 1234;
    const Generation a = generate(o), b = generate(o);
    EXPECT_EQ(a.ids, b.ids);
    EXPECT_EQ(a.logprobs.size(), b.logprobs.size());
    o.sampling.seed = 1235;
    const Generation c = generate(o);
    EXPECT_NE(a.ids, c.ids);
    EXPECT_EQ(a.ids.size(), c.ids.size());
    // Not the greedy continuation either: sampling did sample.
    EXPECT_NE(a.ids, generate(greedy()).ids);
}

TEST_P(Generate, StopsAtAStopIdAndAtN) {
    const Generation base = generate(greedy());
    const std::size_t p = GetParam().prompt.size();
    GenerateOptions o = greedy();
    o.stop_ids = {base.ids[p + 2]};
    // The stop id may come earlier too: the generation stops at its first appearance.
    std::size_t first = p;
    while (base.ids[first] != o.stop_ids[0])
        ++first;
    const Generation g = generate(o);
    EXPECT_EQ(g.stop, StopReason::StopId);
    EXPECT_EQ(g.ids, std::vector<std::int32_t>(base.ids.begin(), base.ids.begin() + first + 1));
    o.stop_ids.clear();
    o.tokens = 3;
    const Generation n = generate(o);
    EXPECT_EQ(n.stop, StopReason::Tokens);
    EXPECT_EQ(n.ids.size(), p + 3);
    EXPECT_EQ(n.run->ids, n.ids);  // the final run holds every id: the exported weights'
    o.tokens = 0;
    EXPECT_EQ(generate(o).ids, GetParam().prompt);
}

/// Cancels at the Nth progress report.
struct GenerateCancelAt : attn::Progress {
    int left;
    explicit GenerateCancelAt(int n) : left(n) {}
    void update(double) override { --left; }
    bool cancelled() const override { return left <= 0; }
};

TEST_P(Generate, CancelReturnsTheTokensMadeSoFar) {
    const Generation base = generate(greedy());
    const int layers = model().info().layers;
    // The prompt's run reports layers + 1 times, each step as many: cancel in the third step.
    GenerateCancelAt cancel((layers + 1) * 3 + 2);
    const Generation g =
        attn::gen::generate(model(), *folder_.tokenizer, GetParam().prompt, greedy(), &cancel);
    EXPECT_EQ(g.stop, StopReason::Cancelled);
    const std::size_t p = GetParam().prompt.size();
    ASSERT_EQ(g.ids.size(), p + 2);
    EXPECT_EQ(g.ids, std::vector<std::int32_t>(base.ids.begin(), base.ids.begin() + p + 2));
    EXPECT_EQ(g.run->ids, g.ids);
    EXPECT_EQ(g.logprobs.size(), g.ids.size());
}

TEST_P(Generate, AControlChangedBetweenStepsAppliesFromTheNextStep) {
    GenerateOptions o = greedy();
    Generation g = attn::gen::start(model(), GetParam().prompt, o.controls);
    attn::gen::step(model(), g, o);
    o.controls.interventions.ablated = {{attn::model::kSingleStack, 0, 0},
                                        {attn::model::kSingleStack, 0, 1}};
    const attn::gen::Step s = attn::gen::step(model(), g, o);
    EXPECT_EQ(s.run->controls, o.controls);
    // The choice came from the ablated run of the ids before it, the same as a fresh run.
    const std::vector<std::int32_t> before(g.ids.begin(), g.ids.end() - 1);
    const attn::model::Run fresh = attn::model::run(model(), before, o.controls);
    EXPECT_EQ(s.choice.id, attn::gen::choose(fresh.logits, o.sampling, Index(before.size())).id);
    const std::vector<float> lp = attn::gen::token_logprobs(model(), *s.run);
    for (std::size_t i = 1; i < lp.size(); ++i)
        EXPECT_NEAR(g.logprobs[i], lp[i], 1e-5) << "position " << i;
}

/// A scene of a generation runs its ids (SceneSpec::model_ids) while its text is their decoding,
/// whatever that text encodes to; an edited text is encoded afresh; sessions keep the ids.
TEST_P(Generate, ASceneRunsTheGeneratedIdsWhileItsTextIsTheirs) {
    const Generation g = generate(greedy());
    const attn::model::Tokenizer& tok = *folder_.tokenizer;
    attn::SceneSpec spec;
    spec.set_model(std::make_shared<const attn::model::ModelFolder>(folder_));
    spec.mask = attn::model::own_mask(model().info());
    spec.text = tok.decode(g.ids);
    spec.model_ids = g.ids;
    EXPECT_EQ(spec.run_ids(), g.ids);
    bool more = false;
    EXPECT_EQ(spec.run_ids(3, &more), std::vector<std::int32_t>(g.ids.begin(), g.ids.begin() + 3));
    EXPECT_TRUE(more);
    EXPECT_EQ(attn::model::scene_run(spec)->ids, g.ids);
    EXPECT_EQ(spec.query_tokens(), tok.display_tokens(g.ids));
    attn::io::Session session;
    session.spec = spec;
    const attn::io::Session back =
        attn::io::parse_session(attn::io::session_to_json(session), "s.attnscope");
    EXPECT_EQ(back.spec.model_ids, g.ids);
    // The text edited (or replaced behind the ids' back): its own encoding.
    const attn::SceneSpec edited = attn::with_text(spec, tok.decode({g.ids[0], g.ids[1]}));
    EXPECT_TRUE(edited.model_ids.empty());
    spec.text = tok.decode({g.ids[0]});
    EXPECT_EQ(spec.run_ids(), tok.encode(spec.text));
    EXPECT_EQ(attn::model::scene_run(spec)->ids, tok.encode(spec.text));
}

TEST_P(Generate, RefusesBadOptions) {
    GenerateOptions o = greedy();
    o.sampling.top_p = 0.f;
    EXPECT_THROW(generate(o), attn::ArgumentError);
    o.sampling.top_p = 1.f;
    o.sampling.top_k = -1;
    EXPECT_THROW(generate(o), attn::ArgumentError);
    o.sampling.top_k = 0;
    o.sampling.temperature = -1.f;
    EXPECT_THROW(generate(o), attn::ArgumentError);
    o.sampling.temperature = 1.f;
    o.tokens = -1;
    EXPECT_THROW(generate(o), attn::ArgumentError);
    // A full sequence cannot take another step.
    Generation g = generate(greedy());
    EXPECT_THROW(attn::gen::step(model(), g, greedy()), attn::ArgumentError);
}

// The Llama family's rows (generate_reference.py's configs): llama with grouped-query attention,
// qwen2 with q/k/v biases (BF16, tied), qwen3 with q_norm/k_norm and head_dim ≠ hidden / heads.
INSTANTIATE_TEST_SUITE_P(Families, Generate,
                         ::testing::Values(FamilyCase{"gpt2", 11, 3, {116, 256, 32, 99, 97, 116}},
                                           FamilyCase{"llama", 21, 3, {1, 2, 3, 4, 1, 5}},
                                           FamilyCase{"qwen2", 22, 2, {3, 17, 5, 39, 0, 12}},
                                           FamilyCase{"qwen3", 23, 2, {7, 8, 9, 40, 11}}),
                         [](const auto& info) { return std::string(info.param.family); });

}  // namespace
