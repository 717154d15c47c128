// AttnScope — the attribution room's exact parts: maximum flow against hand-solved graphs and a
// brute-force minimum cut, Kendall's τ-b against hand-counted pairs, the erasure ranking, the
// composition of layers; integrated gradients' stacked steps against one reverse pass per step.
// The methods on models: tests/cli/attribute_test.sh. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "../io_test_util.hpp"
#include "attn/attribution/attention_paths.hpp"
#include "attn/attribution/contributions.hpp"
#include "attn/attribution/faithfulness.hpp"
#include "attn/attribution/max_flow.hpp"
#include "attn/attribution/reverse_pass.hpp"
#include "attn/attribution/token_attribution.hpp"
#include "attn/models/families.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Index;
using attn::MatrixD;
using attn::attrib::FlowGraph;

TEST(MaxFlow, TheTextbookNetworkCarries23) {
    // CLRS's figure 26.1: s=0, v1..v4 = 1..4, t=5; its maximum flow is 23.
    FlowGraph g(6);
    g.add_edge(0, 1, 16);
    g.add_edge(0, 2, 13);
    g.add_edge(2, 1, 4);
    g.add_edge(1, 3, 12);
    g.add_edge(3, 2, 9);
    g.add_edge(2, 4, 14);
    g.add_edge(4, 3, 7);
    g.add_edge(3, 5, 20);
    g.add_edge(4, 5, 4);
    EXPECT_DOUBLE_EQ(g.max_flow(0, 5), 23.0);
    // Asked again (capacities kept) and the other way round: nothing flows back to the source.
    EXPECT_DOUBLE_EQ(g.max_flow(0, 5), 23.0);
    EXPECT_DOUBLE_EQ(g.max_flow(5, 0), 0.0);
    EXPECT_DOUBLE_EQ(g.max_flow(2, 2), 0.0);
}

TEST(MaxFlow, EqualsTheMinimumCutOfRandomGraphs) {
    // Max-flow = min-cut: every cut (S ∋ source, T ∋ sink) of 7 nodes, brute force.
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> cap(0.0, 1.0);
    for (int trial = 0; trial < 20; ++trial) {
        const int n = 7;
        MatrixD c = MatrixD::Zero(n, n);
        FlowGraph g(n);
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b)
                if (a != b && cap(rng) < 0.5) {
                    c(a, b) = cap(rng);
                    g.add_edge(a, b, c(a, b));
                }
        double best = 1e300;
        for (int mask = 0; mask < (1 << n); ++mask) {
            if (!(mask & 1) || (mask & (1 << (n - 1)))) continue;  // source 0 in S, sink 6 in T
            double cut = 0;
            for (int a = 0; a < n; ++a)
                for (int b = 0; b < n; ++b)
                    if ((mask >> a & 1) && !(mask >> b & 1)) cut += c(a, b);
            best = std::min(best, cut);
        }
        EXPECT_NEAR(g.max_flow(0, n - 1), best, 1e-12) << "trial " << trial;
    }
}

TEST(MaxFlow, RefusesEdgesOutsideTheGraphAndNegativeCapacities) {
    FlowGraph g(3);
    EXPECT_THROW(g.add_edge(0, 3, 1.0), attn::ArgumentError);
    EXPECT_THROW(g.add_edge(0, 1, -1.0), attn::ArgumentError);
    EXPECT_THROW(g.add_edge(0, 1, std::nan("")), attn::ArgumentError);
    EXPECT_THROW(g.max_flow(0, 7), attn::ArgumentError);
}

TEST(AttentionFlow, OneLayerIsItsCapacitiesAndFlowIsBoundedByRollout) {
    // One layer: the only path from j to i is the edge, so flow = Â.
    MatrixD a(3, 3);
    a << 1, 0, 0, 0.25, 0.75, 0, 0.5, 0.25, 0.25;
    const MatrixD flow = attn::attrib::attention_flow({a});
    EXPECT_LT((flow - a).cwiseAbs().maxCoeff(), 1e-15);
    // Two layers, hand-solved: from j = 0 to i = 2 the paths 0→0→2 (min(1, 0.5)) and 0→1→2
    // (min(0.25, 0.25)) and 0→2→2 (min(0.5, 0.25)): 0.5 + 0.25 + 0.25, cut by i's in-capacity 1.
    const MatrixD two = attn::attrib::attention_flow({a, a});
    EXPECT_NEAR(two(2, 0), 1.0, 1e-12);
    EXPECT_NEAR(two(1, 0), 0.25 + 0.25, 1e-12);  // 0→0→1 (0.25) and 0→1→1 (min(0.25, 0.75))
    EXPECT_NEAR(two(0, 2), 0.0, 1e-15);
}

TEST(KendallTauB, CountsPairsWithTies) {
    // 6 pairs, one discordant (2, 3): (5 − 1) / 6.
    EXPECT_NEAR(attn::attrib::kendall_tau_b({1, 2, 3, 4}, {1, 3, 2, 4}), 4.0 / 6.0, 1e-15);
    // A tie in a: 3 pairs, 1 tied in a, 2 concordant: 2 / √(2 · 3).
    EXPECT_NEAR(attn::attrib::kendall_tau_b({1, 1, 2}, {1, 2, 3}), 2.0 / std::sqrt(6.0), 1e-15);
    EXPECT_NEAR(attn::attrib::kendall_tau_b({3, 2, 1}, {1, 2, 3}), -1.0, 1e-15);
    EXPECT_TRUE(std::isnan(attn::attrib::kendall_tau_b({1, 1, 1}, {1, 2, 3})));
    EXPECT_TRUE(std::isnan(attn::attrib::kendall_tau_b({1}, {2})));
    EXPECT_THROW(attn::attrib::kendall_tau_b({1, 2}, {1}), attn::ShapeError);
}

TEST(ErasureRanking, MagnitudeFirstTiesLowerPositionFirst) {
    EXPECT_EQ(attn::attrib::ranked_positions(5, 3, true), (std::vector<Index>{0, 1, 2}));
    EXPECT_EQ(attn::attrib::ranked_positions(5, 3, false), (std::vector<Index>{0, 1, 2, 4}));
    EXPECT_EQ(attn::attrib::ranked_positions(5, 0, true), (std::vector<Index>{}));
    const std::vector<double> scores{0.2, -0.5, 0.5, 0.1, 0.2};
    EXPECT_EQ(attn::attrib::rank_by_magnitude({0, 1, 2, 4}, scores),
              (std::vector<Index>{1, 2, 0, 4}));
    EXPECT_THROW(attn::attrib::rank_by_magnitude({7}, scores), attn::ArgumentError);
}

TEST(ComposeLayers, MultipliesLaterLayersOnTheLeft) {
    MatrixD a(2, 2), b(2, 2);
    a << 1, 0, 0.5, 0.5;
    b << 0.25, 0.75, 0, 1;
    const MatrixD r = attn::attrib::compose_layers({a, b});
    EXPECT_LT((r - b * a).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_THROW(attn::attrib::compose_layers({}), attn::ArgumentError);
}

TEST(AttributionMethods, EveryMethodIsBuilt) {
    for (const std::string& m : attn::attrib::method_names())
        EXPECT_EQ(attn::attrib::unavailable(m), "") << m;
    EXPECT_NE(attn::attrib::unavailable("lime").find("'lime' is not an attribution method"),
              std::string::npos);
    EXPECT_EQ(attn::attrib::method_names().size(), 10u);
}

/// A family that describes no layer: every method of the interface but the descriptions.
class UndescribedModel : public attn::model::Model {
  public:
    UndescribedModel() {
        info_.display = "Undescribed";
        info_.layers = 1;
        info_.d_model = 2;
        info_.vocab = 3;
    }
    const attn::model::ModelInfo& info() const override { return info_; }
    attn::Matrix embed(const std::vector<std::int32_t>& ids, Index) const override {
        return attn::Matrix::Zero(Index(ids.size()), 2);
    }
    void layer(int, attn::Matrix&, Index, const attn::model::LayerAttention*,
               const attn::model::LayerControls&, attn::model::LayerAttention&,
               attn::model::Hooks&) const override {}
    attn::Vector logits(const attn::Matrix&) const override { return attn::Vector::Zero(3); }
    attn::Matrix head_to_residual(int, int, const attn::Matrix& z) const override { return z; }
    attn::Vector attention_bias(int) const override { return attn::Vector::Zero(2); }
    FrozenNorm final_norm(const attn::Matrix&) const override { return {}; }
    attn::Vector unembedding(std::int32_t, float*) const override { return attn::Vector::Zero(2); }

  private:
    attn::model::ModelInfo info_;
};

/// llama_tiny.py's Qwen2 folder (grouped-query heads, rotary positions, biases) written into
/// DIR and opened; null (with a failure) when the script fails.
std::shared_ptr<const attn::model::Model> tiny_qwen2(const io_test::TempDir& dir) {
    const std::string command =
        "/usr/bin/python3 " ATTN_LLAMA_TINY " " + dir.path.string() + " 5 qwen2 > /dev/null";
    if (std::system(command.c_str()) != 0) {
        ADD_FAILURE() << command;
        return nullptr;
    }
    return attn::model::open_folder(dir.path.string()).model;
}

TEST(ReversePass, AFamilyWithoutDescriptionIsRefusedByName) {
    const UndescribedModel m;
    try {
        (void)attn::attrib::logit_gradient(m, attn::Matrix::Zero(2, 2), {}, 1, 0);
        FAIL() << "no refusal";
    } catch (const attn::ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("gradient methods need a layer description"),
                  std::string::npos);
        EXPECT_NE(std::string(e.what()).find("not available for Undescribed"), std::string::npos);
    }
}

TEST(ReversePass, StackedIntegratedGradientsEqualOneReversePassPerStep) {
    // llama_tiny.py's Qwen2 folder (grouped-query heads, rotary positions, biases); a
    // mean-ablated head (the mean is each step's own) and a knocked-out key.
    io_test::TempDir dir;
    const std::shared_ptr<const attn::model::Model> model = tiny_qwen2(dir);
    ASSERT_TRUE(model);
    const std::vector<std::int32_t> ids{3, 9, 1, 4, 7, 2};
    attn::model::RunControls controls;
    controls.interventions.ablated = {{attn::model::kSingleStack, 0, 1}};
    controls.interventions.ablation = attn::model::AblationMode::Mean;
    controls.interventions.knockouts = {{{attn::model::kSingleStack, 1, 0}, -1, 2}};
    const Index p = 5;
    const std::int32_t target = 4;
    const int steps = 7;
    // The reference: one reverse pass per step, α_k = (k − ½)/M.
    const attn::Matrix x0 = model->embed(ids, 0);
    MatrixD mean = MatrixD::Zero(x0.rows(), x0.cols());
    for (int k = 1; k <= steps; ++k) {
        const float alpha = float((double(k) - 0.5) / double(steps));
        mean += attn::attrib::logit_gradient(*model, x0 * alpha, controls, p, target)
                    .x0_grad.cast<double>();
    }
    mean /= double(steps);
    std::vector<double> want;
    double scale = 0;
    for (Index i = 0; i < x0.rows(); ++i) {
        want.push_back(x0.row(i).cast<double>().dot(mean.row(i)));
        scale = std::max(scale, std::abs(want.back()));
    }
    ASSERT_GT(scale, 0.0);
    // Every step at once, one step at a time, and chunks of at most three (2 + 2 + 3).
    for (const std::size_t budget : {std::size_t(1) << 40, std::size_t(1), std::size_t(0)}) {
        attn::attrib::GradientAsk ask;
        ask.integrated = true;
        ask.steps = steps;
        ask.step_budget = budget;
        if (budget == 0) {  // three steps' tapes: what one step's forward keeps, times three
            ask.step_budget = 3 * attn::attrib::described_forward(*model, x0, controls).tape_bytes;
        }
        const attn::attrib::GradientScores s =
            attn::attrib::gradient_scores(*model, ids, controls, p, target, ask);
        ASSERT_EQ(s.integrated_gradients.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
            EXPECT_NEAR(s.integrated_gradients[i], want[i], 1e-5 * scale)
                << "budget " << ask.step_budget << ", position " << i;
    }
}

TEST(ReversePass, TheForwardAtAPositionLeavesItsRowAndItsGradientAsTheWholeForward) {
    // The last layer computed at the explained row alone: its row, the logit's gradient and the
    // earlier layers' inputs are those of the forward of every row.
    io_test::TempDir dir;
    const std::shared_ptr<const attn::model::Model> model = tiny_qwen2(dir);
    ASSERT_TRUE(model);
    const attn::Matrix x0 = model->embed({3, 9, 1, 4, 7, 2}, 0);
    const attn::model::RunControls controls;
    for (const Index p : {Index(5), Index(2)}) {
        const attn::attrib::DescribedForward whole =
            attn::attrib::described_forward(*model, x0, controls);
        const attn::attrib::DescribedForward at =
            attn::attrib::described_forward_at(*model, x0, controls, p);
        ASSERT_EQ(at.inputs.size(), whole.inputs.size());
        for (std::size_t l = 0; l + 1 < at.inputs.size(); ++l)
            EXPECT_EQ(at.inputs[l], whole.inputs[l]) << "layer " << l;
        ASSERT_EQ(at.inputs.back().rows(), 1);
        const attn::Matrix want = whole.inputs.back().row(p);
        const double scale = want.cwiseAbs().maxCoeff();
        EXPECT_LT((at.inputs.back() - want).cwiseAbs().maxCoeff(), 1e-5 * scale) << "row " << p;
        EXPECT_LT(at.tape_bytes, whole.tape_bytes);
        const attn::attrib::LogitGradient g_whole = attn::attrib::logit_gradient_from(
            *model, attn::attrib::described_forward(*model, x0, controls), controls, p, 4);
        const attn::attrib::LogitGradient g_at =
            attn::attrib::logit_gradient(*model, x0, controls, p, 4);
        const double g_scale = g_whole.x0_grad.cwiseAbs().maxCoeff();
        ASSERT_GT(g_scale, 0.0);
        EXPECT_LT((g_at.x0_grad - g_whole.x0_grad).cwiseAbs().maxCoeff(), 1e-5 * g_scale);
        EXPECT_NEAR(g_at.logit, g_whole.logit, 1e-5 * std::abs(g_whole.logit) + 1e-6);
    }
    try {
        (void)attn::attrib::described_forward_at(*model, x0, controls, 6);
        ADD_FAILURE() << "a position past the rows was taken";
    } catch (const attn::ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("position 6"), std::string::npos) << e.what();
    }
}

}  // namespace
