// Tests of token files (.txt) and explicit embeddings (.npy / .csv).
#include <gtest/gtest.h>

#include "../io_test_util.hpp"
#include "attn/io/json/tokens.hpp"
#include "attn/io/load.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;
using io_test::data;

TEST(Tokens, OneLineIsASentence) {
    const io::TokenText t = io::load_token_text(data("npy/sentence.txt"));
    EXPECT_EQ(t.text, "The cat sat on the mat.");
    EXPECT_TRUE(t.tokens.empty());
}

TEST(Tokens, SeveralLinesAreOneTokenEachWithBomAndCrlf) {
    const io::Loaded l = io::load_any(data("npy/lines.txt"));
    ASSERT_TRUE(std::holds_alternative<io::TokenText>(l));
    const auto& t = std::get<io::TokenText>(l);
    EXPECT_TRUE(t.text.empty());
    EXPECT_EQ(t.tokens, (std::vector<std::string>{"[CLS]", "the", " cat", "mät", "[SEP]"}));
}

TEST(Tokens, InvalidUtf8GivesTheByteOffset) {
    EXPECT_EQ(io_test::error_of([] { io::parse_token_text("ab\ncd\xE2\x82", "t.txt"); }),
              "t.txt: invalid UTF-8 at byte 5");
    EXPECT_EQ(io::parse_token_text("a\n\xE2\x82\xAC\n", "t.txt").tokens,
              (std::vector<std::string>{"a", "€"}));
}

TEST(Embeddings, CsvAndNpyAgree) {
    const Matrix c = io::load_embeddings(data("npy/embeddings.csv"));
    ASSERT_EQ(c.rows(), 3);
    ASSERT_EQ(c.cols(), 4);
    EXPECT_EQ(c(0, 2), 1e-3f);
    EXPECT_EQ(c(2, 3), -4.5f);
    const Matrix n = io::load_embeddings(data("npy/embeddings.npy"));
    EXPECT_EQ(n.rows(), 3);
    EXPECT_EQ(n(0, 0), -6.f / 16.f);
    EXPECT_NO_THROW(io::check_embeddings(n, 3, "e.npy"));
    EXPECT_EQ(io_test::error_of([&] { io::check_embeddings(n, 5, "e.npy"); }),
              "e.npy: holds 3 embedding rows but there are 5 tokens");
}

}  // namespace
