// AttnScope — a BERT folder (bert_tiny.py's, Hugging Face layout) through the family registry:
// WordPiece ids written out by hand, token types of a pair, the fill-mask position of a model
// scene and its predictions as the softmax of numpy's logits, and what a post-norm encoder
// refuses. GPL-3.0-or-later.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "../test_util.hpp"
#include "attn/io/session/session.hpp"
#include "attn/models/bert/model.hpp"
#include "attn/models/families.hpp"
#include "attn/models/hf_cache.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/util/error.hpp"

namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::int32_t>;

using testutil::capture;

// bert_tiny.py's vocabulary: [PAD] 0, [unused0] 1, [UNK] 2, [CLS] 3, [SEP] 4, [MASK] 5, the 6,
// cat 7, sat 8, on 9, mat 10, a 11, dog 12, ran 13, is 14, of 15, paris 16, capital 17,
// france 18, play 19, "." 20, "," 21, "!" 22, "?" 23, ##s 24, ##ing 25, ##ed 26, h 27, ##e 28,
// ##l 29, ##o 30, un 31, ##aff 32, ##able 33.
class BertFolder : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new fs::path(fs::temp_directory_path() /
                            ("attn_bert_folder_" + std::to_string(::getpid())));
        fs::create_directories(*dir_);
        // [CLS] the cat [MASK] on the mat . [SEP]
        reference_ = new nlohmann::json(
            nlohmann::json::parse(capture("/usr/bin/python3 " ATTN_BERT_TINY " " + dir_->string() +
                                          " 11 --reference 3,6,7,5,9,6,10,20,4")));
        folder_ = new std::shared_ptr<const attn::model::ModelFolder>(
            std::make_shared<const attn::model::ModelFolder>(
                attn::model::open_folder(dir_->string())));
    }
    static void TearDownTestSuite() {
        delete folder_;
        delete reference_;
        fs::remove_all(*dir_);
        delete dir_;
    }
    static const attn::model::Tokenizer& tokenizer() { return *(*folder_)->tokenizer; }
    static fs::path* dir_;
    static nlohmann::json* reference_;
    static std::shared_ptr<const attn::model::ModelFolder>* folder_;
};
fs::path* BertFolder::dir_ = nullptr;
nlohmann::json* BertFolder::reference_ = nullptr;
std::shared_ptr<const attn::model::ModelFolder>* BertFolder::folder_ = nullptr;

TEST_F(BertFolder, WordPieceIdsOfSentences) {
    EXPECT_EQ(tokenizer().encode("The cat [MASK] on the mat."), (Ids{3, 6, 7, 5, 9, 6, 10, 20, 4}));
    // Greedy longest pieces inside a word; a word no piece starts is [UNK] whole.
    EXPECT_EQ(tokenizer().encode("unaffable cats, hello!"),
              (Ids{3, 31, 32, 33, 7, 24, 21, 27, 28, 29, 29, 30, 22, 4}));
    EXPECT_EQ(tokenizer().encode("zebra\tplaying?"), (Ids{3, 2, 19, 25, 23, 4}));
    EXPECT_EQ(tokenizer().encode("a [SEP] dog"), (Ids{3, 11, 4, 12, 4}));
    EXPECT_EQ(tokenizer().encode(""), (Ids{3, 4}));
    bool more = false;
    EXPECT_EQ(tokenizer().encode("the cat sat on", 3, &more), (Ids{3, 6, 7}));
    EXPECT_TRUE(more);
    EXPECT_EQ(tokenizer().encode("the cat", 4, &more), (Ids{3, 6, 7, 4}));
    EXPECT_FALSE(more);
    EXPECT_EQ(tokenizer().decode({3, 31, 32, 33, 7, 24, 4}), "unaffable cats");
    EXPECT_EQ(tokenizer().decode({3, 11, 4, 12, 5, 4}), "a [SEP] dog [MASK]");
    // A text cut to the model's positions is whole words that encode within them.
    bool cut = false;
    EXPECT_EQ(attn::model::fit_text(tokenizer(), "the cat sat on the mat", 5, &cut), "the cat sat");
    EXPECT_TRUE(cut);
    EXPECT_TRUE(tokenizer().is_special(5));
    EXPECT_FALSE(tokenizer().is_special(24));
    EXPECT_EQ(tokenizer().token_id("[MASK]"), 5);
    EXPECT_EQ(tokenizer().vocab_size(), 34u);
}

TEST_F(BertFolder, TokenTypesAreOneAfterTheFirstSep) {
    const auto& m = dynamic_cast<const attn::bert::Model&>(*(*folder_)->model);
    EXPECT_EQ(m.token_types({3, 6, 4, 12, 13, 4}), (std::vector<int>{0, 0, 0, 1, 1, 1}));
    EXPECT_EQ(m.token_types({3, 6, 7, 4}), (std::vector<int>{0, 0, 0, 0}));
}

TEST_F(BertFolder, TheSceneFillsTheFirstMaskWithNumpysPredictions) {
    attn::SceneSpec s;
    s.model = *folder_;
    s.text = "the cat [MASK] on the mat.";
    s.mask = attn::model::own_mask((*folder_)->model->info());
    EXPECT_EQ(s.mask.kind, attn::MaskKind::None);  // bidirectional: no mask of its own
    s.layer = 1;
    const attn::SceneResult r = attn::model::model_scene(s);
    ASSERT_TRUE(r.run);
    EXPECT_EQ(r.run->logits_position, 3);
    const nlohmann::json& ref = *reference_;
    double err = 0;
    for (std::size_t h = 0; h < 2; ++h)
        for (attn::Index i = 0; i < 9; ++i)
            for (attn::Index j = 0; j < 9; ++j)
                err = std::max(err, std::abs(double(r.heads[h].weights(i, j)) -
                                             ref["weights"][1][h][i][j].get<double>()));
    EXPECT_LT(err, 1e-5);
    // The ten predictions are the softmax of numpy's logits at the [MASK] over the tokenizer's
    // 34 words (the model's 6 rows past them are padding, never listed), likeliest first.
    const auto& logits = ref["logits"];
    const std::size_t words = tokenizer().vocab_size();
    ASSERT_EQ(words, 34u);
    ASSERT_EQ(logits.size(), 40u);
    double top = -1e30, sum = 0;
    for (std::size_t i = 0; i < words; ++i)
        top = std::max(top, logits[i].get<double>());
    for (std::size_t i = 0; i < words; ++i)
        sum += std::exp(logits[i].get<double>() - top);
    ASSERT_EQ(r.next_tokens.size(), 10u);
    for (const attn::NextToken& t : r.next_tokens) {
        EXPECT_LT(std::size_t(t.id), words);
        EXPECT_NEAR(t.probability, std::exp(logits[std::size_t(t.id)].get<double>() - top) / sum,
                    1e-5);
    }
    EXPECT_GE(r.next_tokens[0].probability, r.next_tokens[1].probability);
    EXPECT_EQ(r.next_tokens[0].text, tokenizer().token_text(r.next_tokens[0].id));
}

TEST_F(BertFolder, ModelInfoAndWhatAPostNormEncoderRefuses) {
    const attn::model::Model& m = *(*folder_)->model;
    const attn::model::ModelInfo& info = m.info();
    EXPECT_EQ(info.family, "bert");
    EXPECT_EQ(info.display, "BERT");
    EXPECT_EQ(info.layers, 2);
    EXPECT_EQ(info.heads, 2);
    EXPECT_EQ(info.kv_heads, 2);
    EXPECT_EQ(info.head_dim, 4);
    EXPECT_FALSE(info.causal);
    EXPECT_FALSE(info.pre_norm);
    EXPECT_FALSE(info.rotary);
    EXPECT_EQ(info.dtype, "F32");
    try {
        (void)m.final_norm(attn::Matrix::Zero(1, 8));
        ADD_FAILURE() << "final_norm of a post-norm model";
    } catch (const attn::ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("BERT normalises after each block"),
                  std::string::npos);
    }
}

TEST_F(BertFolder, SessionsKeepRotaryPositionsOffAndNothingElseChanges) {
    attn::io::Session session;
    session.spec.model = *folder_;
    session.spec.model_layers = {1};
    const std::string on = attn::io::session_to_json(session);
    EXPECT_EQ(on.find("\"rotary\""), std::string::npos);  // on: sessions stay as they were
    EXPECT_TRUE(attn::io::parse_session(on, "s.attnscope").spec.model_rotary);
    session.spec.model_rotary = false;
    const attn::io::Session back =
        attn::io::parse_session(attn::io::session_to_json(session), "s.attnscope");
    EXPECT_FALSE(back.spec.model_rotary);
    EXPECT_EQ(back.spec.model_layers, std::vector<int>{1});
}

TEST(BertHubCache, BertFoldersAreListedBesideGpt2) {
    const fs::path hub =
        fs::temp_directory_path() / ("attn_bert_hub_" + std::to_string(::getpid()));
    const fs::path d = hub / "models--google-bert--bert-base-uncased" / "snapshots" / "abc";
    fs::create_directories(d);
    std::ofstream(d / "config.json") << "{\"model_type\": \"bert\"}";
    std::ofstream(d / "model.safetensors") << "x";
    EXPECT_EQ(attn::model::find_cached_models(hub.string()), (std::vector<std::string>{d}));
    EXPECT_EQ(attn::model::model_name(d.string()), "google-bert/bert-base-uncased");
    // The menu's summary: family and the weights' bytes, without reading a tensor.
    const attn::model::FolderSummary about = attn::model::summarize_folder(d.string());
    EXPECT_EQ(about.family, "bert");
    EXPECT_EQ(about.display, "BERT");
    EXPECT_EQ(about.bytes, 1.0);
    // Sharded: the distinct files of the index's weight_map, each once.
    fs::remove(d / "model.safetensors");
    std::ofstream(d / "a.safetensors") << "xyz";
    std::ofstream(d / "b.safetensors") << "xy";
    std::ofstream(d / "model.safetensors.index.json")
        << R"({"weight_map": {"t1": "a.safetensors", "t2": "b.safetensors", "t3": "a.safetensors"}})";
    EXPECT_EQ(attn::model::summarize_folder(d.string()).bytes, 5.0);
    std::ofstream(d / "config.json") << "{\"model_type\": \"t5\"}";  // an encoder–decoder
    EXPECT_EQ(attn::model::summarize_folder(d.string()).family, "t5");
    std::ofstream(d / "config.json") << "{\"model_type\": \"mamba\"}";  // no family runs it
    EXPECT_EQ(attn::model::summarize_folder(d.string()).family, "");
    EXPECT_EQ(attn::model::summarize_folder(d.string()).display, "");
    EXPECT_EQ(attn::model::summarize_folder((hub / "nowhere").string()).bytes, 0.0);
    fs::remove_all(hub);
}

}  // namespace
