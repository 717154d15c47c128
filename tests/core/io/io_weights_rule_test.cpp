// Tests of the one rule for what a file calls attention weights (attn::io::check_weights): a
// negative entry in an .npz's `attention` (as attnscope.save writes it), in BertViz's encoder /
// decoder / cross attentions or in a BertViz or CircuitsVis JSON is refused, naming the file,
// the member, the first negative entry and how many there are; the same numbers as `scores`
// open; weights whose rows do not sum to 1 (a slice of the tokens) still open.
#include <gtest/gtest.h>

#include "../io_test_util.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;

/// What loading PATH throws, or "" when it opens.
std::string weights_refusal(const std::string& path) {
    try {
        io::load_attention(path);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

// 2 heads of 2 × 2: head 1, query 0, key 1 is −0.25, and one more entry is negative.
const std::vector<float> kNegative = {0.5f, 0.5f, 1.f, 0.f, 1.25f, -0.25f, -0.5f, 1.5f};
const std::uint64_t kNegativeShape[] = {2, 2, 2};

TEST(WeightsRule, NegativeAttentionInAnNpzIsRefused) {
    io_test::TempDir dir;
    io::write_npz(dir.file("neg.npz"), {{"attention", io::npy_bytes(kNegative, kNegativeShape)}});
    EXPECT_EQ(weights_refusal(dir.file("neg.npz")),
              "neg.npz: attention.npy: attention weights are post-softmax (≥ 0), but entry "
              "[layer, head, query, key] [0, 1, 0, 1] is -0.25 (2 of 8 entries are negative); "
              "save raw scores as 'scores' instead, to which the app's controls and softmax "
              "apply");
    // The same numbers as raw scores open, as scores.
    io::write_npz(dir.file("scores.npz"), {{"scores", io::npy_bytes(kNegative, kNegativeShape)}});
    const AttentionData d = io::load_attention(dir.file("scores.npz"));
    ASSERT_EQ(d.components.size(), 1u);
    EXPECT_TRUE(d.components[0].are_scores);
}

TEST(WeightsRule, EncoderDecoderAttentionsFollowTheRule) {
    io_test::TempDir dir;
    io::write_npz(dir.file("s2s.npz"),
                  {{"encoder_attention", io::npy_bytes(kNegative, kNegativeShape)}});
    EXPECT_EQ(weights_refusal(dir.file("s2s.npz"))
                  .rfind("s2s.npz: encoder_attention.npy: attention "
                         "weights are post-softmax (≥ 0), but entry",
                         0),
              0u);
}

TEST(WeightsRule, JsonWeightsFollowTheRule) {
    io_test::TempDir dir;
    io_test::write_text(dir.file("cv.json"),
                        R"({"attention": [[[0.5, 0.5], [1.5, -0.5]]], "tokens": ["a", "b"]})");
    EXPECT_EQ(weights_refusal(dir.file("cv.json"))
                  .rfind("cv.json: attention: attention weights are "
                         "post-softmax (≥ 0), but entry [layer, head, "
                         "query, key] [0, 0, 1, 1] is -0.5 (1 of 4",
                         0),
              0u);
}

TEST(WeightsRule, RowsThatDoNotSumToOneStillOpen) {
    io_test::TempDir dir;
    const std::vector<float> slice = {0.25f, 0.25f, 0.f, 0.5f, 0.1f, 0.2f, 0.3f, 0.f};
    io::write_npz(dir.file("slice.npz"), {{"attention", io::npy_bytes(slice, kNegativeShape)}});
    EXPECT_EQ(weights_refusal(dir.file("slice.npz")), "");
}

}  // namespace
