// BertViz's layouts in an .npz: a sentence pair split at sentence_b_start, and an
// encoder–decoder model's encoder, decoder and cross attention.
#include <gtest/gtest.h>

#include <cmath>

#include "../io_test_util.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"

using namespace attn;

namespace {

/// [L, H, nq, nk] row-stochastic weights: w ∝ 1 + ((7l + 5h + 3i + j) mod 4).
std::vector<float> weights(int l_, int h_, int nq, int nk) {
    std::vector<float> w;
    for (int l = 0; l < l_; ++l)
        for (int h = 0; h < h_; ++h)
            for (int i = 0; i < nq; ++i) {
                float sum = 0;
                for (int j = 0; j < nk; ++j)
                    sum += 1.f + float((7 * l + 5 * h + 3 * i + j) % 4);
                for (int j = 0; j < nk; ++j)
                    w.push_back((1.f + float((7 * l + 5 * h + 3 * i + j) % 4)) / sum);
            }
    return w;
}

float at(const std::vector<float>& w, int h_, int nq, int nk, int l, int h, int i, int j) {
    return w[std::size_t(((l * h_ + h) * nq + i) * nk + j)];
}

}  // namespace

TEST(NpzBertViz, SentencePairSplitsLikeBertViz) {
    io_test::TempDir dir;
    const std::uint64_t shape[] = {2, 3, 5, 5};
    const std::vector<float> w = weights(2, 3, 5, 5);
    const float b[] = {2};
    const std::uint64_t one[] = {1};
    io::write_npz(dir.file("pair.npz"),
                  {{"attention", io::npy_bytes(w, shape)},
                   {"tokens", io::npy_string_bytes({"[CLS]", "a", "[SEP]", "b", "[SEP]"})},
                   {"sentence_b_start", io::npy_bytes(b, one)}});
    const AttentionData d = io::load_attention(dir.file("pair.npz"));
    ASSERT_EQ(d.components.size(), 5u);
    EXPECT_EQ(d.default_component, 0);
    const char* names[] = {"all", "aa", "bb", "ab", "ba"};
    for (int c = 0; c < 5; ++c)
        EXPECT_EQ(d.components[std::size_t(c)].name, names[c]);
    const AttentionComponent& ab = d.components[3];
    EXPECT_EQ(ab.q_tokens, (std::vector<std::string>{"[CLS]", "a"}));
    EXPECT_EQ(ab.k_tokens, (std::vector<std::string>{"[SEP]", "b", "[SEP]"}));
    ASSERT_EQ(ab.mats[0].rows(), 2);
    ASSERT_EQ(ab.mats[0].cols(), 3);
    // A → B, layer 1, head 2, query 1, key 2 is the full tensor's (1, 2 + 2).
    EXPECT_EQ(ab.at(1, 2)(1, 2), at(w, 3, 5, 5, 1, 2, 1, 4));
    const AttentionComponent& ba = d.components[4];
    EXPECT_EQ(ba.at(0, 1)(2, 0), at(w, 3, 5, 5, 0, 1, 4, 0));
    // The four blocks tile the whole matrix: each query's row sums over A and B make 1.
    for (int i = 0; i < 2; ++i)
        EXPECT_NEAR(d.components[1].at(1, 0).row(i).sum() + ab.at(1, 0).row(i).sum(), 1.0, 1e-6);
    EXPECT_FALSE(ab.are_scores);
}

TEST(NpzBertViz, SentencePairRefusals) {
    io_test::TempDir dir;
    const std::uint64_t shape[] = {1, 1, 4, 4}, one[] = {1};
    const std::vector<float> w = weights(1, 1, 4, 4);
    const auto with = [&](float b) {
        const float v[] = {b};
        io::write_npz(dir.file("p.npz"), {{"attention", io::npy_bytes(w, shape)},
                                          {"sentence_b_start", io::npy_bytes(v, one)}});
        return io_test::error_of([&] { io::load_attention(dir.file("p.npz")); });
    };
    EXPECT_NE(with(4).find("sentence B would start at token 4 of 4 (expected 1 … 3)"),
              std::string::npos);
    EXPECT_NE(with(0).find("expected 1 … 3"), std::string::npos);
    EXPECT_NE(with(1.5f).find("expected one integer"), std::string::npos);
    EXPECT_NE(with(1e30f).find("sentence B would start at token 1"), std::string::npos);
}

TEST(NpzBertViz, EncoderDecoderCrossComponents) {
    io_test::TempDir dir;
    const std::uint64_t enc[] = {2, 2, 4, 4}, dec[] = {2, 2, 3, 3}, cross[] = {2, 2, 3, 4};
    const std::vector<float> we = weights(2, 2, 4, 4), wd = weights(2, 2, 3, 3),
                             wc = weights(2, 2, 3, 4);
    io::write_npz(dir.file("s2s.npz"),
                  {{"encoder_attention", io::npy_bytes(we, enc)},
                   {"decoder_attention", io::npy_bytes(wd, dec)},
                   {"cross_attention", io::npy_bytes(wc, cross)},
                   {"encoder_tokens", io::npy_string_bytes({"Das", "ist", "gut", "</s>"})},
                   {"decoder_tokens", io::npy_string_bytes({"<s>", "That", "is"})}});
    const AttentionData d = io::load_attention(dir.file("s2s.npz"));
    ASSERT_EQ(d.components.size(), 3u);
    EXPECT_EQ(d.components[0].name, "Encoder");
    EXPECT_EQ(d.components[1].name, "Decoder");
    const AttentionComponent& c = d.components[2];
    EXPECT_EQ(c.name, "Cross");
    EXPECT_EQ(c.q_tokens, (std::vector<std::string>{"<s>", "That", "is"}));
    EXPECT_EQ(c.k_tokens, (std::vector<std::string>{"Das", "ist", "gut", "</s>"}));
    EXPECT_EQ(c.at(1, 1)(2, 3), at(wc, 2, 3, 4, 1, 1, 2, 3));
    EXPECT_EQ(d.components[1].at(1, 0)(2, 1), at(wd, 2, 3, 3, 1, 0, 2, 1));
    EXPECT_FALSE(c.are_scores);
}

TEST(NpzBertViz, EncoderDecoderRefusals) {
    io_test::TempDir dir;
    const std::uint64_t enc[] = {1, 1, 4, 4}, cross[] = {1, 1, 3, 5};
    io::write_npz(dir.file("bad.npz"),
                  {{"encoder_attention", io::npy_bytes(weights(1, 1, 4, 4), enc)},
                   {"cross_attention", io::npy_bytes(weights(1, 1, 3, 5), cross)}});
    EXPECT_NE(io_test::error_of([&] {
                  io::load_attention(dir.file("bad.npz"));
              }).find("cross_attention has 5 key columns but encoder_attention covers 4"),
              std::string::npos);
    io::write_npz(dir.file("tok.npz"),
                  {{"encoder_attention", io::npy_bytes(weights(1, 1, 4, 4), enc)},
                   {"encoder_tokens", io::npy_string_bytes({"a", "b"})}});
    EXPECT_NE(io_test::error_of([&] {
                  io::load_attention(dir.file("tok.npz"));
              }).find("tok.npz: encoder_attention has 4 query rows but encoder_tokens holds 2"),
              std::string::npos);
    io::write_npz(dir.file("mixed.npz"),
                  {{"encoder_attention", io::npy_bytes(weights(1, 1, 4, 4), enc)},
                   {"attention", io::npy_bytes(weights(1, 1, 4, 4), enc)}});
    EXPECT_NE(io_test::error_of([&] {
                  io::load_attention(dir.file("mixed.npz"));
              }).find("separate files"),
              std::string::npos);
}
