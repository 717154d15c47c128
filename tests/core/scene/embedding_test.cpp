// Tests of tokenisation, hashed embeddings and positional encodings.
#include <gtest/gtest.h>

#include <cmath>

#include "../test_util.hpp"
#include "attn/scene/embedding.hpp"
#include "attn/util/error.hpp"

namespace {

using Tokens = std::vector<std::string>;

TEST(Tokenize, WordsAndPunctuation) {
    EXPECT_EQ(attn::tokenize("The European Economic Area."),
              (Tokens{"The", "European", "Economic", "Area", "."}));
    EXPECT_EQ(attn::tokenize("signed in August 1992 ."),
              (Tokens{"signed", "in", "August", "1992", "."}));
    EXPECT_EQ(attn::tokenize("I don't know, do you?"),
              (Tokens{"I", "don't", "know", ",", "do", "you", "?"}));
    EXPECT_EQ(attn::tokenize("  (a)\t\n b  "), (Tokens{"(", "a", ")", "b"}));
    EXPECT_EQ(attn::tokenize("Pi is 3.14, about 1,000 ways..."),
              (Tokens{"Pi", "is", "3.14", ",", "about", "1,000", "ways", "..."}));
    EXPECT_EQ(attn::tokenize("'quoted' end'"), (Tokens{"'", "quoted", "'", "end", "'"}));
    EXPECT_EQ(attn::tokenize(""), Tokens{});
    EXPECT_EQ(attn::tokenize("   "), Tokens{});
}

TEST(Tokenize, Utf8AwareWords) {
    EXPECT_EQ(attn::tokenize("Übermäßig große Straße."),
              (Tokens{"Übermäßig", "große", "Straße", "."}));
    EXPECT_EQ(attn::tokenize("l’été « chaud »"), (Tokens{"l’été", "«", "chaud", "»"}));
    EXPECT_EQ(attn::tokenize("Привет, мир!"), (Tokens{"Привет", ",", "мир", "!"}));
    EXPECT_EQ(attn::tokenize("日本語。テスト"), (Tokens{"日本語", "。", "テスト"}));
    EXPECT_EQ(attn::tokenize("a\u00a0b—c"), (Tokens{"a", "b", "—", "c"}));
}

TEST(Tokenize, InvalidUtf8IsAFormatError) {
    EXPECT_THROW_MSG(attn::tokenize("ab\xff"), attn::FormatError, "UTF-8", "byte 2");
    EXPECT_THROW_MSG(attn::tokenize("\xc3"), attn::FormatError, "truncated");
    EXPECT_THROW_MSG(attn::tokenize("x\xc3(y"), attn::FormatError, "continuation");
    EXPECT_THROW_MSG(attn::tokenize("\xc0\xaf"), attn::FormatError, "byte 0");  // overlong '/'
    EXPECT_THROW_MSG(attn::tokenize("\xe0\x80\xaf"), attn::FormatError, "overlong");
    EXPECT_THROW_MSG(attn::tokenize("\xed\xa0\x80"), attn::FormatError, "surrogate");
    EXPECT_THROW_MSG(attn::tokenize("\xf4\x90\x80\x80"), attn::FormatError, "U+10FFFF");
}

TEST(Embeddings, HashedAreDeterministicPerTokenAndSeed) {
    const Tokens t{"the", "cat", "the"};
    const attn::Matrix a = attn::hashed_embeddings(t, 16, 1), b = attn::hashed_embeddings(t, 16, 1);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.row(0), a.row(2));
    EXPECT_NE(a.row(0), a.row(1));
    EXPECT_NE(a, attn::hashed_embeddings(t, 16, 2));
    // Unit variance over many tokens.
    Tokens many;
    for (int i = 0; i < 500; ++i)
        many.push_back("tok" + std::to_string(i));
    const attn::Matrix m = attn::hashed_embeddings(many, 64, 3);
    const double mean = m.cast<double>().mean();
    EXPECT_NEAR((m.cast<double>().array() - mean).square().mean(), 1.0, 0.03);
    EXPECT_THROW(attn::hashed_embeddings(t, 0, 1), attn::ArgumentError);
    EXPECT_EQ(attn::hashed_embeddings({}, 8, 1).rows(), 0);
}

TEST(Positional, SinusoidalHandValues) {
    const attn::Matrix P = attn::positional_encoding(attn::PositionalKind::Sinusoidal, 3, 6, 0);
    // Position 0 → [sin 0, cos 0, …] = [0, 1, 0, 1, 0, 1].
    for (int j = 0; j < 6; ++j)
        EXPECT_FLOAT_EQ(P(0, j), j % 2 == 0 ? 0.f : 1.f);
    EXPECT_FLOAT_EQ(P(1, 0), std::sin(1.f));
    EXPECT_FLOAT_EQ(P(1, 1), std::cos(1.f));
    // Dimension pair i = 1: frequency 10000^(−2/6).
    const double f = std::pow(10000.0, -2.0 / 6.0);
    EXPECT_NEAR(P(2, 2), std::sin(2 * f), 1e-6);
    EXPECT_NEAR(P(2, 3), std::cos(2 * f), 1e-6);
    // Odd width: last column is a sine.
    const attn::Matrix O = attn::positional_encoding(attn::PositionalKind::Sinusoidal, 2, 5, 0);
    EXPECT_NEAR(O(1, 4), std::sin(std::pow(10000.0, -4.0 / 5.0)), 1e-6);
}

TEST(Positional, LearnedIsSeededAndPrefixStableNoneIsZero) {
    using K = attn::PositionalKind;
    const attn::Matrix a = attn::positional_encoding(K::Learned, 4, 8, 5);
    EXPECT_EQ(a, attn::positional_encoding(K::Learned, 4, 8, 5));
    EXPECT_NE(a, attn::positional_encoding(K::Learned, 4, 8, 6));
    EXPECT_EQ(a.topRows(4), attn::positional_encoding(K::Learned, 9, 8, 5).topRows(4));
    EXPECT_TRUE(attn::positional_encoding(K::None, 3, 8, 5).isZero(0));
    EXPECT_THROW(attn::positional_encoding(K::None, -1, 8, 5), attn::ArgumentError);
    EXPECT_THROW(attn::positional_encoding(K::Sinusoidal, 2, 0, 5), attn::ArgumentError);
    for (auto k : {K::Sinusoidal, K::Learned, K::None})
        EXPECT_EQ(attn::positional_kind_from_string(attn::to_string(k)), k);
    EXPECT_THROW_MSG(attn::positional_kind_from_string("rotary"), attn::ArgumentError, "rotary");
}

}  // namespace
