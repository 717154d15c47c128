// AttnScope — a GPT-2 run as a scene (SceneSpec::model): the shown layer's stages as computed
// inside the run, the controls' layer scope, the run cache and the next-token list, checked
// against the numpy GPT-2 of gpt2_tiny.py on a tiny random folder it writes. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "../test_util.hpp"
#include "attn/io/session/session.hpp"
#include "attn/models/gpt2/model.hpp"
#include "attn/models/hf_cache.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/scene/scene_controls.hpp"
#include "attn/scene/scene_layers.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Index;
using attn::SceneSpec;
namespace fs = std::filesystem;

/// The output of a shell command.
using testutil::capture;

/// gpt2_tiny.py's folder of 3 layers (seed 11) and numpy's numbers for the ids of "the cat".
class Gpt2Scene : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new fs::path(fs::temp_directory_path() /
                            ("attn_gpt2_scene_" + std::to_string(::getpid())));
        fs::create_directories(*dir_);
        const std::string out = capture("/usr/bin/python3 " ATTN_GPT2_TINY " " + dir_->string() +
                                        " 11 3 --reference 116,256,32,99,97,116");
        ASSERT_FALSE(out.empty()) << "gpt2_tiny.py wrote nothing";
        folder_ = new std::shared_ptr<const attn::model::ModelFolder>(
            std::make_shared<const attn::model::ModelFolder>(
                attn::gpt2::open_folder(dir_->string())));
    }
    static void TearDownTestSuite() {
        delete folder_;
        fs::remove_all(*dir_);
        delete dir_;
    }
    /// numpy's weights [layer][head][i][j] and logits for the given extra arguments.
    static nlohmann::json reference(const std::string& args) {
        const std::string out =
            capture("/usr/bin/python3 " ATTN_GPT2_TINY " " + (*dir_ / "ref").string() +
                    " 11 3 --reference 116,256,32,99,97,116 " + args);
        return nlohmann::json::parse(out);
    }
    static SceneSpec spec() {
        SceneSpec s;
        s.model = *folder_;
        s.text = "the cat";
        s.mask = attn::gpt2::causal();
        return s;
    }
    /// Every layer's scene of spec s.
    static std::vector<attn::SceneResult> layers(const SceneSpec& s) {
        std::vector<attn::SceneResult> out;
        attn::for_each_layer(s, [&](Index, const attn::SceneResult& r) { out.push_back(r); });
        return out;
    }
    /// Largest |difference| between the scenes' weights and numpy's.
    static double weights_error(const std::vector<attn::SceneResult>& got,
                                const nlohmann::json& ref) {
        double err = 0;
        for (std::size_t l = 0; l < got.size(); ++l)
            for (std::size_t h = 0; h < got[l].heads.size(); ++h) {
                const attn::Matrix& w = got[l].heads[h].weights;
                for (Index i = 0; i < w.rows(); ++i)
                    for (Index j = 0; j < w.cols(); ++j)
                        err = std::max(err, std::abs(double(w(i, j)) -
                                                     ref["weights"][l][h][i][j].get<double>()));
            }
        return err;
    }
    static double logits_error(const attn::SceneResult& r, const nlohmann::json& ref) {
        double err = 0, top = 0;
        for (Index v = 0; v < r.run->logits.size(); ++v) {
            const double want = ref["logits"][std::size_t(v)].get<double>();
            err = std::max(err, std::abs(double(r.run->logits[v]) - want));
            top = std::max(top, std::abs(want));
        }
        return err / top;
    }
    static double layer_difference(const attn::SceneResult& a, const attn::SceneResult& b) {
        double d = 0;
        for (std::size_t h = 0; h < a.heads.size(); ++h)
            d = std::max(d,
                         double((a.heads[h].weights - b.heads[h].weights).cwiseAbs().maxCoeff()));
        return d;
    }
    static fs::path* dir_;
    static std::shared_ptr<const attn::model::ModelFolder>* folder_;
};
fs::path* Gpt2Scene::dir_ = nullptr;
std::shared_ptr<const attn::model::ModelFolder>* Gpt2Scene::folder_ = nullptr;

TEST_F(Gpt2Scene, EveryLayerAndTheLogitsMatchNumpy) {
    const auto got = layers(spec());
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].q_tokens, (std::vector<std::string>{"t", "he", " ", "c", "a", "t"}));
    EXPECT_EQ(got[0].run->ids, (std::vector<std::int32_t>{116, 256, 32, 99, 97, 116}));
    const nlohmann::json ref = reference("");
    EXPECT_LT(weights_error(got, ref), 1e-5);
    EXPECT_LT(logits_error(got[2], ref), 1e-4);
}

TEST_F(Gpt2Scene, ScopeOneLayerChangesItAndLaterLayersOnly) {
    const auto base = layers(spec());
    SceneSpec s = spec();
    s.scale = false;
    s.model_layers = {1};
    const auto scoped = layers(s);
    const nlohmann::json ref = reference("--no-scale --layers 1");
    EXPECT_LT(weights_error(scoped, ref), 1e-5);
    EXPECT_LT(logits_error(scoped[0], ref), 1e-4);
    EXPECT_EQ(layer_difference(base[0], scoped[0]), 0.0);  // before the scope: untouched
    EXPECT_GT(layer_difference(base[1], scoped[1]), 1e-3);
    EXPECT_GT(layer_difference(base[2], scoped[2]), 1e-3);  // after it: follows the change
    EXPECT_GT((base[0].run->logits - scoped[0].run->logits).cwiseAbs().maxCoeff(), 1e-3);
    // Inside the scope the stages are unscaled; outside they are GPT-2's own 1/√d_k.
    const float dk = float(scoped[1].d_k);
    EXPECT_FLOAT_EQ(scoped[1].heads[0].multiplier, 1.f);
    EXPECT_FLOAT_EQ(scoped[2].heads[0].multiplier, 1.f / std::sqrt(dk));
    // Layer 2's weights by hand from its own q and k: softmax(q·kᵀ/√d_k) under the causal mask.
    const attn::SceneResult& r = scoped[2];
    for (Index h = 0; h < 2; ++h) {
        const attn::Matrix q = r.Q.middleCols(h * r.d_k, r.d_k),
                           k = r.K.middleCols(h * r.d_k, r.d_k);
        for (Index i = 0; i < q.rows(); ++i) {
            Eigen::RowVectorXd e(q.rows());
            for (Index j = 0; j < q.rows(); ++j)
                e[j] = j > i ? 0.0 : std::exp(double(q.row(i).dot(k.row(j))) / std::sqrt(dk));
            e /= e.sum();
            for (Index j = 0; j < q.rows(); ++j)
                EXPECT_NEAR(r.heads[std::size_t(h)].weights(i, j), e[j], 1e-6);
        }
    }
}

TEST_F(Gpt2Scene, TemperatureInTheFirstLayerChangesEveryLayer) {
    const auto base = layers(spec());
    SceneSpec s = spec();
    s.temperature = 2.f;
    s.model_layers = {0};
    const auto hot = layers(s);
    const nlohmann::json ref = reference("--temperature 2 --layers 0");
    EXPECT_LT(weights_error(hot, ref), 1e-5);
    EXPECT_LT(logits_error(hot[0], ref), 1e-4);
    for (std::size_t l = 0; l < 3; ++l)
        EXPECT_GT(layer_difference(base[l], hot[l]), 1e-3) << "layer " << l;
    EXPECT_FLOAT_EQ(hot[0].heads[1].multiplier, 1.f / (std::sqrt(float(hot[0].d_k)) * 2.f));
}

TEST_F(Gpt2Scene, CoreKeepsNoRunsAndEveryLayerComesOutOfOneRun) {
    SceneSpec s = spec();
    // Core computes afresh (the application keeps runs): two calls, two runs, the same numbers.
    auto first = attn::model::scene_run(s);
    const auto again = attn::model::scene_run(s);
    EXPECT_NE(first, again);
    const std::weak_ptr<const attn::gpt2::Run> kept = first;
    ASSERT_EQ(first->layers.size(), again->layers.size());
    for (std::size_t l = 0; l < first->layers.size(); ++l)
        for (std::size_t h = 0; h < first->layers[l].heads.size(); ++h)
            EXPECT_EQ(first->layers[l].heads[h].weights, again->layers[l].heads[h].weights);
    // The scene of a given run is the scene computed from scratch.
    s.layer = 2;
    const attn::SceneResult given = attn::model::model_scene(s, again);
    const attn::SceneResult fresh = attn::compute_scene(s);
    EXPECT_EQ(given.run, again);
    ASSERT_EQ(given.heads.size(), fresh.heads.size());
    for (std::size_t h = 0; h < fresh.heads.size(); ++h)
        EXPECT_EQ(given.heads[h].weights, fresh.heads[h].weights);
    EXPECT_EQ(given.Q, fresh.Q);
    // Every layer of a model scene is read out of one run (for_each_layer runs the model once).
    std::vector<std::shared_ptr<const attn::model::Run>> runs;
    attn::for_each_layer(s, [&](Index, const attn::SceneResult& r) { runs.push_back(r.run); });
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0], runs[1]);
    EXPECT_EQ(runs[1], runs[2]);
    // …and with the shown layer known, it is that layer's run.
    runs.clear();
    attn::for_each_layer(
        s, [&](Index, const attn::SceneResult& r) { runs.push_back(r.run); }, nullptr, true,
        &given);
    for (const auto& r : runs)
        EXPECT_EQ(r, again);
    runs.clear();
    first.reset();  // nothing in core holds a run
    EXPECT_TRUE(kept.expired());
}

TEST_F(Gpt2Scene, NextTokensAreTheSoftmaxOfTheLogits) {
    const attn::SceneResult r = attn::compute_scene(spec());
    ASSERT_EQ(r.next_tokens.size(), 10u);
    const attn::Vector& logits = r.run->logits;
    const double top = logits.maxCoeff();
    const double sum = (logits.array() - float(top)).exp().cast<double>().sum();
    for (std::size_t i = 0; i < r.next_tokens.size(); ++i) {
        const attn::NextToken& t = r.next_tokens[i];
        EXPECT_NEAR(t.probability, std::exp(double(logits[t.id]) - top) / sum, 1e-6);
        if (i > 0) {
            EXPECT_LE(t.probability, r.next_tokens[i - 1].probability);
        }
        EXPECT_EQ(t.text, (*folder_)->tokenizer->token_text(t.id));
    }
    Index best = 0;
    logits.maxCoeff(&best);
    EXPECT_EQ(r.next_tokens[0].id, best);
}

TEST_F(Gpt2Scene, ControlsAndErrors) {
    SceneSpec s = spec();
    EXPECT_EQ(attn::control_state(s, attn::SceneControl::Scale), attn::ControlState::Applies);
    EXPECT_EQ(attn::control_state(s, attn::SceneControl::Temperature), attn::ControlState::Applies);
    EXPECT_EQ(attn::control_state(s, attn::SceneControl::Heads), attn::ControlState::FixedByModel);
    EXPECT_EQ(attn::layer_count(s), 3);
    s.model_layers = {3};
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ArgumentError, "layer 3", "has 3");
    s = spec();
    s.layer = 5;
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ArgumentError, "layer 5");
    s = spec();
    s.text = "";
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ArgumentError, "no tokens");
    s.text = "the cat sat on the mat and then it sat";  // 17+ byte tokens: over 16 positions
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ArgumentError, "positions");
}

TEST_F(Gpt2Scene, FitTextKeepsTheFirstWholeTokens) {
    const attn::model::Tokenizer& tok = *(*folder_)->tokenizer;
    bool cut = true;
    EXPECT_EQ(attn::model::fit_text(tok, "the cat", 16, &cut), "the cat");
    EXPECT_FALSE(cut);
    const std::string text = "the cat sat on the mat and then it sat";
    const std::vector<std::int32_t> ids = tok.encode(text);
    ASSERT_GT(ids.size(), 16u);
    const std::string fit = attn::model::fit_text(tok, text, 16, &cut);
    EXPECT_TRUE(cut);
    EXPECT_EQ(fit, text.substr(0, fit.size()));  // the start of the text, whole tokens
    EXPECT_EQ(tok.encode(fit), std::vector<std::int32_t>(ids.begin(), ids.begin() + 16));
    SceneSpec s = spec();
    s.text = fit;
    EXPECT_EQ(attn::compute_scene(s).query_count(), 16);
    // Never inside a character: "é" is two bytes, two byte-level tokens in this vocabulary.
    const std::string accents = "éééééééééééééééééééé";
    const std::string head = attn::model::fit_text(tok, accents, 7, &cut);
    EXPECT_TRUE(cut);
    EXPECT_EQ(head, "ééé");
    EXPECT_LE(tok.encode(head).size(), 7u);
}

}  // namespace

namespace {

TEST_F(Gpt2Scene, SessionsReferenceTheModelFolder) {
    attn::io::Session session;
    session.spec = spec();
    session.spec.layer = 2;
    session.spec.model_layers = {1};
    const std::string text = attn::io::session_to_json(session);
    const attn::io::Session back = attn::io::parse_session(text, "s.attnscope");
    EXPECT_EQ(back.model_path, dir_->string());
    EXPECT_EQ(back.spec.layer, 2);
    EXPECT_EQ(back.spec.model_layers, std::vector<int>{1});
    EXPECT_FALSE(back.spec.model);  // the app opens the folder
    // Without a model the session has no "model" key at all.
    EXPECT_EQ(attn::io::session_to_json(attn::io::Session{}).find("\"model\""), std::string::npos);
}

TEST(Gpt2HubCache, ListsOnlyGpt2FoldersWithSafetensors) {
    const fs::path hub = fs::temp_directory_path() / ("attn_hub_" + std::to_string(::getpid()));
    const auto folder = [&](const std::string& repo, const std::string& type, bool weights) {
        const fs::path d = hub / ("models--" + repo) / "snapshots" / "abc123";
        fs::create_directories(d);
        std::ofstream(d / "config.json") << "{\"model_type\": \"" << type << "\"}";
        if (weights) std::ofstream(d / "model.safetensors") << "x";
        return d.string();
    };
    const std::string gpt2 = folder("gpt2", "gpt2", true);
    const std::string distil = folder("distilgpt2", "gpt2", true);
    const std::string t5 = folder("t5-small", "t5", true);  // an encoder–decoder runs too
    folder("mamba-130m", "mamba", true);                    // a family that does not run
    folder("gpt2-medium", "gpt2", false);                   // no model.safetensors (e.g. .bin only)
    fs::create_directories(hub / "datasets--x" / "snapshots" / "s");
    std::ofstream(hub / "models--broken" / "snapshots" / "s" / "config.json");
    EXPECT_EQ(attn::model::find_cached_models(hub.string()),
              (std::vector<std::string>{distil, gpt2, t5}));
    EXPECT_TRUE(attn::model::find_cached_models((hub / "nowhere").string()).empty());
    fs::remove_all(hub);
}

TEST(Gpt2HubCache, ModelNamesAreTheRepositories) {
    EXPECT_EQ(attn::model::model_name("/h/hub/models--openai-community--gpt2/snapshots/607a30d"),
              "openai-community/gpt2");
    EXPECT_EQ(attn::model::model_name("/h/hub/models--gpt2/snapshots/607a30d/"), "gpt2");
    EXPECT_EQ(attn::model::model_name("/home/me/my-gpt2"), "my-gpt2");
    EXPECT_EQ(attn::model::model_name("/x/snapshots/abc"), "abc");  // not a hub cache
}

TEST(Gpt2HubCache, HubDirectoryFollowsHfHome) {
    const char* old = std::getenv("HF_HOME");
    const std::string saved = old ? old : "";
    setenv("HF_HOME", "/data/hf", 1);
    EXPECT_EQ(attn::model::hub_cache_dir(), "/data/hf/hub");
    unsetenv("HF_HOME");
    EXPECT_EQ(attn::model::hub_cache_dir(),
              std::string(std::getenv("HOME")) + "/.cache/huggingface/hub");
    if (old) setenv("HF_HOME", saved.c_str(), 1);
}

}  // namespace

namespace {

/// Largest difference between two runs' weights (every layer and head) and logits.
double run_difference(const attn::gpt2::Run& a, const attn::gpt2::Run& b) {
    double d = (a.logits - b.logits).cwiseAbs().maxCoeff();
    for (std::size_t l = 0; l < a.layers.size(); ++l)
        for (std::size_t h = 0; h < a.layers[l].heads.size(); ++h) {
            const auto& x = a.layers[l].heads[h];
            const auto& y = b.layers[l].heads[h];
            d = std::max(d, double((x.weights - y.weights).cwiseAbs().maxCoeff()));
            d = std::max(d, double((x.raw - y.raw).cwiseAbs().maxCoeff()));
            d = std::max(d, double((x.output - y.output).cwiseAbs().maxCoeff()));
        }
    return d;
}

TEST_F(Gpt2Scene, ARetypedEndReusesTheStartOfTheRun) {
    const auto& model = dynamic_cast<const attn::gpt2::Model&>(*(*folder_)->model);
    attn::gpt2::RunControls controls;
    controls.scale = false;
    controls.layers = {1};
    const std::vector<std::int32_t> cat{116, 256, 32, 99, 97, 116}, hat{116, 256, 32, 104, 97, 116};
    const attn::gpt2::Run before = model.run(cat, controls);
    const attn::gpt2::Run fresh = model.run(hat, controls);
    const attn::gpt2::Run reused = model.run(hat, controls, nullptr, &before);
    EXPECT_EQ(fresh.reused, 0);
    EXPECT_EQ(reused.reused, 3);  // "t", "he", " " shared; from "h" on computed
    EXPECT_LT(run_difference(reused, fresh), 1e-5);
    EXPECT_GT(run_difference(before, fresh), 1e-3);  // the word did change the run
    // A shorter sentence (a deleted word) reuses all but its last token.
    const attn::gpt2::Run shorter = model.run({116, 256, 32}, controls, nullptr, &before);
    EXPECT_EQ(shorter.reused, 2);
    EXPECT_LT(run_difference(shorter, model.run({116, 256, 32}, controls)), 1e-5);
    // Without the causal mask every token sees the later ones: nothing can be reused; nor from
    // a run with other controls.
    attn::gpt2::RunControls open = controls;
    open.mask = attn::MaskSpec{};
    EXPECT_EQ(model.run(hat, open, nullptr, &before).reused, 0);
    attn::gpt2::RunControls hot = controls;
    hot.temperature = 2.f;
    EXPECT_EQ(model.run(hat, hot, nullptr, &before).reused, 0);
}

TEST_F(Gpt2Scene, TheSceneRunReusesAPrefixAndMatchesNumpy) {
    SceneSpec s = spec();
    s.text = "the cat";
    s.scale = false;
    s.model_layers = {1};
    const auto cat = attn::model::scene_run(s);
    s.text = "the hat";  // 116,256,32,104,97,116: numpy's reference below is of these ids
    const auto run = attn::model::scene_run(s, nullptr, cat.get());
    EXPECT_EQ(run->reused, 3);
    const std::string out =
        capture("/usr/bin/python3 " ATTN_GPT2_TINY " " + (*dir_ / "ref").string() +
                " 11 3 --reference 116,256,32,104,97,116 --no-scale --layers 1");
    const nlohmann::json ref = nlohmann::json::parse(out);
    double err = 0;
    for (std::size_t l = 0; l < 3; ++l)
        for (std::size_t h = 0; h < 2; ++h)
            for (Index i = 0; i < 6; ++i)
                for (Index j = 0; j < 6; ++j)
                    err = std::max(err, std::abs(double(run->layers[l].heads[h].weights(i, j)) -
                                                 ref["weights"][l][h][i][j].get<double>()));
    EXPECT_LT(err, 1e-5);
}

}  // namespace
