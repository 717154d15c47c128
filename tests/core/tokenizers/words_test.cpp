// Sub-word pieces merged into words: the grouping rule by hand, the merge of a matrix by hand,
// and a real GPT-2 scene merged against a brute-force loop over the loaded weights.
#include "attn/tokenizers/words.hpp"

#include <gtest/gtest.h>

#include "../io_test_util.hpp"
#include "attn/io/load.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"

using namespace attn;
using Strings = std::vector<std::string>;

TEST(WordGroups, EachTokenizer) {
    const WordGroups gpt2 =
        word_groups({"Data", " visualization", " em", "powers", " users", " to"});
    EXPECT_EQ(gpt2.words,
              (std::vector<std::string>{"Data", "visualization", "empowers", "users", "to"}));
    EXPECT_EQ(gpt2.group_of, (std::vector<Index>{0, 1, 2, 2, 3, 4}));
    const WordGroups bert = word_groups({"[CLS]", "em", "##power", "##s", "users", "[SEP]"});
    EXPECT_EQ(bert.words, (std::vector<std::string>{"[CLS]", "empowers", "users", "[SEP]"}));
    const WordGroups roberta = word_groups({"<s>", "Hello",
                                            "\xC4\xA0"
                                            "wor",
                                            "ld", "</s>"});
    EXPECT_EQ(roberta.words, (std::vector<std::string>{"<s>", "Hello", "world", "</s>"}));
    const WordGroups sp =
        word_groups({"\xE2\x96\x81"
                     "un",
                     "believ", "able",
                     "\xE2\x96\x81"
                     "!"});
    EXPECT_EQ(sp.words, (std::vector<std::string>{"unbelievable", "!"}));
    EXPECT_EQ(word_groups({"a", "b"}).size(), 2);  // no marker: every token is a word
}

TEST(MergeWords, SumsKeysAndAveragesQueries) {
    Matrix a(3, 3);
    a << 1, 0, 0, 0.2f, 0.8f, 0, 0.1f, 0.3f, 0.6f;
    const WordGroups g = word_groups({"x", "##y", "z"});  // words: "xy", "z"
    const Matrix m = merge_words(a, g, g);
    ASSERT_EQ(m.rows(), 2);
    // Row "xy" = mean of rows 0 and 1 with keys 0+1 summed: (1 + 1) / 2 = 1 on "xy".
    EXPECT_FLOAT_EQ(m(0, 0), 1.f);
    EXPECT_FLOAT_EQ(m(0, 1), 0.f);
    EXPECT_FLOAT_EQ(m(1, 0), 0.4f);
    EXPECT_FLOAT_EQ(m(1, 1), 0.6f);
    EXPECT_THROW(merge_words(a, word_groups({"x"}), g), ShapeError);
}

TEST(WordGroups, SpecialTokensStayAloneAndPlainWordsAreUntouched) {
    const WordGroups g = word_groups({"<s>", "\u2581Hi", "<|endoftext|>", "there", "!"});
    EXPECT_EQ(g.words, (Strings{"<s>", "Hi", "<|endoftext|>", "there!"}));
    EXPECT_EQ(g.group_of, (std::vector<Index>{0, 1, 2, 3, 3}));
    EXPECT_TRUE(g.merges());
    const WordGroups plain = word_groups({"the", "cat", "sat"});
    EXPECT_EQ(plain.size(), 3);
    EXPECT_FALSE(plain.merges());
}

TEST(MergeWords, RectangularKeysOnlyByHand) {
    const WordGroups k = word_groups({"a", "##b", "c"});
    const WordGroups q = word_groups({"x", "y", "z"});
    Matrix m(3, 3);
    m << 0.5f, 0.3f, 0.2f, 0.1f, 0.6f, 0.3f, 0.2f, 0.2f, 0.6f;
    // Keys "a ##b" summed, queries untouched: [0.8 0.2], [0.7 0.3], [0.4 0.6].
    const Matrix r = merge_words(m, q, k);
    ASSERT_EQ(r.rows(), 3);
    ASSERT_EQ(r.cols(), 2);
    EXPECT_FLOAT_EQ(r(0, 0), 0.8f);
    EXPECT_FLOAT_EQ(r(1, 0), 0.7f);
    EXPECT_FLOAT_EQ(r(2, 1), 0.6f);
    // Both sides: the "ab" row is the mean of [0.8 0.2] and [0.7 0.3].
    const Matrix w = merge_words(m, k, k);
    EXPECT_FLOAT_EQ(w(0, 0), 0.75f);
    EXPECT_FLOAT_EQ(w(0, 1), 0.25f);
}

TEST(MergeWords, RealGpt2SceneMatchesABruteForceLoop) {
    SceneSpec spec;
    spec.data = std::make_shared<const AttentionData>(
        io::load_attention(io_test::real("gpt2_small_ex0.npz")));
    spec.component = 1;  // the model's post-softmax weights
    spec.layer = 4;
    spec.merge_words = true;
    const SceneResult r = compute_scene(spec);
    ASSERT_TRUE(r.merged_words);
    EXPECT_FALSE(r.has_scores);
    EXPECT_FALSE(r.has_qk);
    EXPECT_EQ(r.q_tokens, (Strings{"Data", "visualization", "empowers", "users", "to"}));
    EXPECT_EQ(r.q_pieces[3], "powers");
    const AttentionComponent& c = spec.data->components[1];
    // Word w's pieces: {0}, {1}, {2, 3}, {4}, {5}.
    const std::vector<std::vector<int>> pieces = {{0}, {1}, {2, 3}, {4}, {5}};
    for (Index h = 0; h < 12; ++h) {
        const Matrix& a = c.at(4, h);
        const Matrix& w = r.heads[std::size_t(h)].weights;
        for (Index qa = 0; qa < 5; ++qa) {
            double row = 0;
            for (Index kb = 0; kb < 5; ++kb) {
                double want = 0;
                for (int i : pieces[std::size_t(qa)])
                    for (int j : pieces[std::size_t(kb)])
                        want += a(i, j);
                want /= double(pieces[std::size_t(qa)].size());
                EXPECT_NEAR(w(qa, kb), want, 1e-6) << "head " << h << " word " << qa << "," << kb;
                row += w(qa, kb);
            }
            EXPECT_NEAR(row, 1.0, 1e-5);  // rows of a merged softmax still sum to 1
        }
    }
    // Layer 4, head 11 is GPT-2's previous-token head: "users" (word 3) gives nearly all of its
    // weight to "empowers" (word 2), the sum of " em" and "powers"'s columns.
    EXPECT_GT(r.heads[11].weights(3, 2), 0.99f);
    // The merge is off by default: six pieces.
    spec.merge_words = false;
    EXPECT_EQ(compute_scene(spec).q_tokens.size(), 6u);
}

TEST(MergeWords, ScoresOfASyntheticSceneStillGiveRowsOfOne) {
    SceneSpec spec;
    spec.tokens = {"[CLS]", "un", "##believ", "##able", "news", "[SEP]"};
    spec.merge_words = true;
    const SceneResult r = compute_scene(spec);
    ASSERT_EQ(r.q_tokens, (Strings{"[CLS]", "unbelievable", "news", "[SEP]"}));
    ASSERT_EQ(r.heads[0].weights.rows(), 4);
    for (const HeadResult& h : r.heads)
        for (Index i = 0; i < 4; ++i)
            EXPECT_NEAR(h.weights.row(i).sum(), 1.f, 1e-5f);
    EXPECT_EQ(r.stats.size(), r.heads.size());
}
