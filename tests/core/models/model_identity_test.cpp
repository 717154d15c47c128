// AttnScope — a session records what its model folder held (family, shapes, a hash of
// config.json and the weight files' headers) and reads it back; what differs is said in words;
// a relative model.path is taken relative to the session. The folders are the tiny GPT-2 and
// BERT of gpt2_tiny.py and bert_tiny.py. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "../io_test_util.hpp"
#include "attn/io/session/session.hpp"
#include "attn/models/families.hpp"
#include "attn/models/model_identity.hpp"
#include "attn/util/error.hpp"

namespace {

namespace fs = std::filesystem;
using attn::model::ModelIdentity;

/// Runs SCRIPT DIR ARGS with Debian's python3 (numpy); false when it failed.
bool write_tiny(const char* script, const fs::path& dir, const std::string& args) {
    const std::string command = std::string("/usr/bin/python3 ") + script + " " + dir.string() +
                                " " + args + " > /dev/null";
    return std::system(command.c_str()) == 0;
}

ModelIdentity identity_of(const fs::path& dir) {
    return attn::model::model_identity(attn::model::open_folder(dir.string()));
}

TEST(ModelIdentity, RecordsTheFamilyTheShapesAndAHashOfTheHeaders) {
    const io_test::TempDir tmp;
    ASSERT_TRUE(write_tiny(ATTN_GPT2_TINY, tmp.path / "gpt2", "11 3"));
    const ModelIdentity id = identity_of(tmp.path / "gpt2");
    EXPECT_EQ(id.family, "gpt2");
    EXPECT_EQ(id.layers, 3);
    EXPECT_EQ(id.heads, 2);
    EXPECT_EQ(id.d_model, 8);
    EXPECT_EQ(id.vocab, 258);  // byte-level: 256 bytes and two merges
    ASSERT_EQ(id.hash.size(), std::string("fnv1a64:").size() + 16) << id.hash;
    EXPECT_EQ(id.hash.rfind("fnv1a64:", 0), 0u) << id.hash;
    EXPECT_EQ(identity_of(tmp.path / "gpt2"), id);  // the same folder, the same identity
    // Other random weights of the same layout: the headers (names, dtypes, shapes, offsets)
    // and config.json are the same, and the weights themselves are not read.
    ASSERT_TRUE(write_tiny(ATTN_GPT2_TINY, tmp.path / "other-seed", "12 3"));
    EXPECT_EQ(identity_of(tmp.path / "other-seed"), id);
    ASSERT_TRUE(write_tiny(ATTN_GPT2_TINY, tmp.path / "two", "11 2"));
    const ModelIdentity two = identity_of(tmp.path / "two");
    EXPECT_EQ(two.layers, 2);
    EXPECT_NE(two.hash, id.hash);
}

TEST(ModelIdentity, SaysWhatDiffers) {
    const io_test::TempDir tmp;
    ASSERT_TRUE(write_tiny(ATTN_GPT2_TINY, tmp.path / "gpt2", "11 3"));
    ASSERT_TRUE(write_tiny(ATTN_BERT_TINY, tmp.path / "bert", "11"));
    const ModelIdentity gpt2 = identity_of(tmp.path / "gpt2"),
                        bert = identity_of(tmp.path / "bert");
    EXPECT_EQ(attn::model::identity_difference(gpt2, gpt2), "");
    EXPECT_EQ(attn::model::identity_difference(gpt2, bert),
              "family BERT (bert) instead of GPT-2 (gpt2), 2 layers instead of 3, 40 vocabulary "
              "entries instead of 258");
    // config.json edited (one more key): the same family and shapes, another hash.
    {
        std::ifstream in(tmp.path / "gpt2" / "config.json");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto brace = text.find('{');
        ASSERT_NE(brace, std::string::npos);
        text.insert(brace + 1, "\"edited\": true, ");
        std::ofstream(tmp.path / "gpt2" / "config.json", std::ios::trunc) << text;
    }
    const ModelIdentity edited = identity_of(tmp.path / "gpt2");
    EXPECT_NE(edited.hash, gpt2.hash);
    EXPECT_EQ(attn::model::identity_difference(gpt2, edited),
              "the same family and shapes, but config.json or the weight files' headers changed "
              "(" +
                  edited.hash + " instead of " + gpt2.hash + ")");
    ModelIdentity unknown = gpt2;
    unknown.family = "mamba";
    EXPECT_EQ(attn::model::identity_difference(unknown, gpt2),
              "family GPT-2 (gpt2) instead of mamba");
}

TEST(ModelIdentity, SessionsWriteAndReadIt) {
    const io_test::TempDir tmp;
    ASSERT_TRUE(write_tiny(ATTN_GPT2_TINY, tmp.path / "gpt2", "11 3"));
    attn::io::Session session;
    session.spec.set_model(std::make_shared<const attn::model::ModelFolder>(
        attn::model::open_folder((tmp.path / "gpt2").string())));
    const std::string text = attn::io::session_to_json(session);
    const ModelIdentity id = identity_of(tmp.path / "gpt2");
    EXPECT_NE(text.find("\"identity\": {\n      \"family\": \"gpt2\",\n      \"layers\": 3,\n"
                        "      \"heads\": 2,\n      \"d_model\": 8,\n      \"vocab\": 258,\n"
                        "      \"hash\": \"" +
                        id.hash + "\"\n    }"),
              std::string::npos)
        << text;
    const attn::io::Session back = attn::io::parse_session(text, "s.attnscope");
    ASSERT_TRUE(back.model_identity);
    EXPECT_EQ(*back.model_identity, id);
    EXPECT_EQ(back.model_path, (tmp.path / "gpt2").string());
    // Saved again without the folder open (only the path, as read): the identity is kept.
    attn::io::Session again;
    again.model_path = back.model_path;
    again.model_identity = back.model_identity;
    EXPECT_EQ(attn::io::parse_session(attn::io::session_to_json(again), "s").model_identity, id);
}

TEST(ModelIdentity, OlderSessionsHaveNoneAndABadOneIsNamed) {
    const std::string old =
        R"({"format": "attnscope-session", "version": 1, "scene": {}, "model": {"path": "m"}})";
    EXPECT_FALSE(attn::io::parse_session(old, "old.attnscope").model_identity);
    const std::string bad =
        R"({"format": "attnscope-session", "version": 1, "scene": {}, "model": {"path": "m",
            "identity": {"family": "gpt2", "layers": "three", "heads": 2, "d_model": 8,
            "vocab": 40, "hash": "fnv1a64:0"}}})";
    try {
        attn::io::parse_session(bad, "bad.attnscope");
        ADD_FAILURE() << "the session was read";
    } catch (const attn::FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("bad.attnscope: model.identity.layers"),
                  std::string::npos)
            << e.what();
    }
}

TEST(ModelIdentity, ARelativeModelPathIsRelativeToTheSession) {
    attn::io::Session s;
    s.model_path = "../models/gpt2";
    EXPECT_EQ(attn::io::resolved_model_path("/work/sessions/a.attnscope", s),
              "/work/sessions/../models/gpt2");
    s.model_path = "/abs/gpt2";
    EXPECT_EQ(attn::io::resolved_model_path("/work/sessions/a.attnscope", s), "/abs/gpt2");
    s.model_path.clear();
    EXPECT_EQ(attn::io::resolved_model_path("/work/sessions/a.attnscope", s), "");
}

}  // namespace
