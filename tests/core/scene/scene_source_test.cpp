// Tests of a scene's explicit source (SceneSpec::source and its setters) and of a result's one
// storage enum (SceneResult::storage), and that every session file under tests/ still opens to
// the spec it was written from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "../io_test_util.hpp"
#include "attn/io/session/session.hpp"
#include "attn/models/model.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;

std::shared_ptr<const AttentionData> two_by_two(bool scores) {
    AttentionData d;
    d.source = "pair.npy";
    AttentionComponent c;
    c.q_tokens = c.k_tokens = {"a", "b"};
    c.layers = 1, c.heads = 1;
    Matrix m(2, 2);
    m << 0.25f, 0.75f, 0.5f, 0.5f;
    c.mats = {m};
    c.are_scores = scores;
    d.components = {c};
    return std::make_shared<const AttentionData>(std::move(d));
}

TEST(SceneSource, DefaultIsSyntheticAndTheSettersKeepOneSource) {
    SceneSpec s;
    EXPECT_EQ(s.source(), SourceKind::Synthetic);
    EXPECT_TRUE(s.is_synthetic());
    EXPECT_FALSE(s.is_loaded() || s.is_model());
    const auto data = two_by_two(false);
    s.set_loaded(data);
    EXPECT_EQ(s.source(), SourceKind::Loaded);
    EXPECT_TRUE(s.is_loaded());
    EXPECT_EQ(s.data, data);
    // A model folder (its contents do not matter to the source): loading it drops the data.
    auto folder = std::make_shared<const model::ModelFolder>();
    s.set_model(folder);
    EXPECT_EQ(s.source(), SourceKind::ModelRun);
    EXPECT_TRUE(s.is_model());
    EXPECT_EQ(s.data, nullptr);
    s.set_loaded(data);
    EXPECT_EQ(s.model, nullptr);
    s.set_synthetic();
    EXPECT_EQ(s.source(), SourceKind::Synthetic);
    EXPECT_EQ(s.data, nullptr);
    EXPECT_EQ(s.model, nullptr);
    EXPECT_TRUE(s == SceneSpec{});  // the rest stayed as it was
}

TEST(SceneSource, ChangingTheSourceRestartsFullyAndControlsOnlySoftmax) {
    SceneSpec a;
    SceneSpec b = a;
    b.set_loaded(two_by_two(true));
    EXPECT_EQ(restart_from(a, b), SceneRestart::Full);
    SceneSpec c = b;
    c.temperature = 0.5f;
    EXPECT_EQ(restart_from(b, c), SceneRestart::Softmax);
    c.set_loaded(two_by_two(true));  // equal numbers, another file: compared by identity
    EXPECT_EQ(restart_from(b, c), SceneRestart::Full);
}

TEST(SceneSource, ResultsSayHowTheyAreStoredAndWhetherTheyHaveScores) {
    SceneSpec s;
    s.text = "one two three";
    s.d_model = 8, s.heads = 2;
    const SceneResult stages = compute_scene(s, nullptr, Storage::Stages);
    EXPECT_EQ(stages.storage, Storage::Stages);
    EXPECT_TRUE(stages.has_scores);
    const SceneResult weights = compute_scene(s, nullptr, Storage::Weights);
    EXPECT_EQ(weights.storage, Storage::Weights);
    EXPECT_EQ(weights.heads[0].raw.size(), 0);  // raw scores recomputed on demand
    EXPECT_NEAR(weights.raw_row(1, 2)(0), stages.heads[1].raw(2, 0), 1e-5f);
    const SceneResult streamed = compute_scene(s, nullptr, Storage::Streamed);
    EXPECT_EQ(streamed.storage, Storage::Streamed);
    EXPECT_NEAR(streamed.weight(0, 1, 2), stages.heads[0].weights(1, 2), 1e-5f);

    s.set_loaded(two_by_two(false));
    const SceneResult post = compute_scene(s);
    EXPECT_EQ(post.storage, Storage::Stages);
    EXPECT_FALSE(post.has_scores);
    EXPECT_FLOAT_EQ(post.weight(0, 0, 1), 0.75f);
    EXPECT_THROW(post.raw_row(0, 0), ArgumentError);
    s.set_loaded(two_by_two(true));
    const SceneResult scores = compute_scene(s);
    EXPECT_TRUE(scores.has_scores);
    // softmax of (0.25, 0.75) / √64: 1 / (1 + e^{-0.0625})
    EXPECT_NEAR(scores.weight(0, 0, 1), 1.f / (1.f + std::exp(-0.0625f)), 1e-6f);
}

/// a == b, the shared matrices compared by value (a file read twice has new pointers).
void expect_same_spec(SceneSpec a, SceneSpec b, const std::string& name) {
    EXPECT_EQ(a.source(), b.source()) << name;
    const auto same = [](const Matrix& x, const Matrix& y) {
        return x.rows() == y.rows() && x.cols() == y.cols() &&
               std::memcmp(x.data(), y.data(), sizeof(float) * std::size_t(x.size())) == 0;
    };
    ASSERT_EQ(bool(a.embeddings), bool(b.embeddings)) << name;
    if (a.embeddings) {
        EXPECT_TRUE(same(*a.embeddings, *b.embeddings)) << name;
    }
    ASSERT_EQ(bool(a.weights), bool(b.weights)) << name;
    if (a.weights) {
        EXPECT_TRUE(same(a.weights->Wq, b.weights->Wq)) << name;
        EXPECT_TRUE(same(a.weights->Wo, b.weights->Wo)) << name;
    }
    ASSERT_EQ(bool(a.data), bool(b.data)) << name;
    if (a.data) {
        ASSERT_EQ(a.data->components.size(), b.data->components.size()) << name;
        for (std::size_t c = 0; c < a.data->components.size(); ++c) {
            const auto &x = a.data->components[c], &y = b.data->components[c];
            EXPECT_EQ(x.q_tokens, y.q_tokens) << name;
            ASSERT_EQ(x.mats.size(), y.mats.size()) << name;
            for (std::size_t m = 0; m < x.mats.size(); ++m)
                EXPECT_TRUE(same(x.mats[m], y.mats[m])) << name;
        }
    }
    b.embeddings = a.embeddings, b.weights = a.weights, b.data = a.data;
    EXPECT_TRUE(a == b) << name;
}

TEST(SceneSource, EverySessionFileUnderTestsOpensToTheSpecItWrites) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(io_test::data("sessions")))
        if (e.path().extension() == ".attnscope") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    ASSERT_GE(files.size(), 6u);  // default, explicit weights, loaded, embedded, playground, …
    int loaded = 0;
    for (const auto& f : files) {
        const std::string name = f.filename().string();
        const io::Session first = io::load_session(f.string());
        const std::string text = io::session_to_json(first);
        const io::Session second = io::parse_session(text, name);
        expect_same_spec(first.spec, second.spec, name);
        EXPECT_EQ(first.data_path, second.data_path) << name;
        EXPECT_EQ(first.model_path, second.model_path) << name;
        EXPECT_EQ(first.views, second.views) << name;
        EXPECT_EQ(io::session_to_json(second), text) << name;  // a fixed point after one write
        loaded += first.spec.is_loaded();
        EXPECT_FALSE(first.spec.is_model()) << name;  // the app opens model_path, not the file
    }
    EXPECT_EQ(loaded, 1);  // embedded_pair: the one session holding its data
}

}  // namespace
