// Marian's vocab.json read once for both SentencePiece models (core/src/models/
// sentencepiece_tokenizer.hpp, internal): the pieces the JSON tree gives, the greater of two
// pieces naming a shared id whatever the hash map's order, and the tree's messages for a file
// that is not an object of ids. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <fstream>

#include "../../../core/src/models/sentencepiece_tokenizer.hpp"
#include "../io_test_util.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::model::read_piece_vocab;

std::string written(const io_test::TempDir& dir, const std::string& text) {
    const std::string path = (dir.path / "vocab.json").string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::string refusal_of(const std::string& path) {
    try {
        read_piece_vocab(path);
    } catch (const attn::FormatError& e) {
        return e.what();
    }
    return "no error";
}

TEST(PieceVocab, EachIdsPieceAndTheSpecialIdsAreTheFiles) {
    io_test::TempDir dir;
    // Ids 3 and 5 are each named twice; 4 is not named (Marian's vocabularies have no gaps, but
    // the decoder must still not read past the end).
    const auto v = read_piece_vocab(written(
        dir, R"({"<unk>": 1, "</s>": 0, "b": 3, "a": 3, "<pad>": 2, "zz": 5, "": 5, "c": 6})"));
    ASSERT_EQ(v->pieces.size(), 7u);
    EXPECT_EQ(v->eos, 0);
    EXPECT_EQ(v->unk, 1);
    EXPECT_EQ(v->pieces[2], "<pad>");
    EXPECT_EQ(v->pieces[3], "b");  // the greater of "a" and "b"
    EXPECT_EQ(v->pieces[4], "");
    EXPECT_EQ(v->pieces[5], "zz");
    EXPECT_EQ(v->ids.at("a"), 3);
    EXPECT_EQ(v->ids.at(""), 5);
    EXPECT_EQ(v->ids.size(), 8u);
}

TEST(PieceVocab, AFileThatIsNotAnObjectOfIdsIsNamedWithWhatIsWrong) {
    io_test::TempDir dir;
    const std::string not_object = written(dir, "[1, 2]");
    EXPECT_EQ(refusal_of(not_object), not_object + ": not a JSON object of pieces and ids");
    const std::string truncated = written(dir, R"({"</s>": 0, "<unk>": 1)");
    EXPECT_EQ(refusal_of(truncated), truncated + ": not a JSON object of pieces and ids");
    const std::string fractional = written(dir, R"({"</s>": 0, "<unk>": 1, "x": 2.5})");
    EXPECT_EQ(refusal_of(fractional),
              fractional + ": the id of \"x\" is not an integer from 0 to 2^24");
    const std::string negative = written(dir, R"({"</s>": 0, "<unk>": -1})");
    EXPECT_EQ(refusal_of(negative),
              negative + ": the id of \"<unk>\" is not an integer from 0 to 2^24");
    const std::string no_eos = written(dir, R"({"<unk>": 0, "a": 1})");
    EXPECT_EQ(refusal_of(no_eos), no_eos + ": no \"</s>\" entry");
    const std::string no_unk = written(dir, R"({"</s>": 0, "a": 1})");
    EXPECT_EQ(refusal_of(no_unk), no_unk + ": no \"<unk>\" entry");
}

}  // namespace
