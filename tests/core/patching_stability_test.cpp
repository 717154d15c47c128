// AttnScope — patching's stability threshold (attn::interv::unstable_span) at and around its
// boundary, the logit spread PatchResult carries (the clean run's logits' standard deviation,
// recomputed here in double), and the shaped int32 and unicode .npy writers the exports use.
// GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/gpt2/model.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/io/npy.hpp"
#include "io_test_util.hpp"

namespace {

namespace interv = attn::interv;

TEST(PatchingStability, TheThresholdIsAFifthOfTheLogitSpread) {
    EXPECT_EQ(interv::kUnstableSpanFraction, 0.2);
    // The audit's Qwen case: clean 1.2984, corrupted 1.4105 (−0.1121) against a spread of 2.
    EXPECT_TRUE(interv::unstable_span(1.2984, 1.4105, 2.0));
    // An IOI-sized difference (7 logits) is far above it.
    EXPECT_FALSE(interv::unstable_span(3.5, -3.5, 3.0));
    // At the boundary: 0.6 = 0.2 × 3 is stable, just under it is not; the sign does not matter.
    EXPECT_FALSE(interv::unstable_span(0.6, 0.0, 3.0));
    EXPECT_FALSE(interv::unstable_span(0.0, 0.6, 3.0));
    EXPECT_TRUE(interv::unstable_span(0.5999, 0.0, 3.0));
    // Nothing to restore, or numbers that are not numbers, are never stable.
    EXPECT_TRUE(interv::unstable_span(1.0, 1.0, 0.0));
    EXPECT_TRUE(interv::unstable_span(std::numeric_limits<double>::quiet_NaN(), 0.0, 1.0));
    EXPECT_TRUE(interv::unstable_span(std::numeric_limits<double>::infinity(), 0.0, 1.0));
}

/// gpt2_tiny.py's folder (seed 11, 3 layers of 2 heads, vocabulary 258).
class PatchingSpread : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new io_test::TempDir;
        const std::string command =
            "/usr/bin/python3 " ATTN_GPT2_TINY " " + dir_->path.string() + " 11 3 > /dev/null";
        ASSERT_EQ(std::system(command.c_str()), 0) << command;
        folder_ = new attn::model::ModelFolder(attn::gpt2::open_folder(dir_->path.string()));
    }
    static void TearDownTestSuite() {
        delete folder_;
        delete dir_;
    }
    static inline io_test::TempDir* dir_ = nullptr;
    static inline attn::model::ModelFolder* folder_ = nullptr;
};

TEST_F(PatchingSpread, TheResultCarriesTheCleanLogitsSpreadAndSaysWhetherItIsStable) {
    const attn::model::Model& m = *folder_->model;
    interv::PatchSpec s;
    s.clean = {116, 104, 101, 32, 99, 97, 116, 32, 115, 97, 116};      // "the cat sat"
    s.corrupt = {116, 104, 101, 32, 100, 111, 103, 32, 115, 97, 116};  // "the dog sat"
    s.heads = false;
    const attn::model::Run clean = attn::model::run(m, s.clean);
    double mean = 0, square = 0;
    for (attn::Index i = 0; i < clean.logits.size(); ++i)
        mean += clean.logits[i];
    mean /= double(clean.logits.size());
    for (attn::Index i = 0; i < clean.logits.size(); ++i)
        square += (clean.logits[i] - mean) * (clean.logits[i] - mean);
    const double spread = std::sqrt(square / double(clean.logits.size()));
    ASSERT_GT(spread, 0.1);
    int stable = 0, unstable = 0;
    for (const auto& [answer, wrong] : std::vector<std::pair<int, int>>{
             {42, 114}, {5, 7}, {97, 116}, {115, 32}, {100, 99}, {111, 97}}) {
        s.answer = answer;
        s.wrong = wrong;
        const interv::PatchResult r = interv::patch(m, s);
        EXPECT_NEAR(r.logit_scale, spread, 1e-5 * spread);
        EXPECT_EQ(r.unstable(), interv::unstable_span(r.clean_diff, r.corrupt_diff, spread));
        EXPECT_EQ(r.unstable(), std::abs(r.clean_diff - r.corrupt_diff) < 0.2 * spread);
        (r.unstable() ? unstable : stable) += 1;
        std::printf("pair %d %d: span %.4f spread %.4f unstable %d\n", answer, wrong,
                    r.clean_diff - r.corrupt_diff, spread, int(r.unstable()));
    }
    // The tiny model has answers of both kinds for these prompts.
    EXPECT_GT(stable, 0);
    EXPECT_GT(unstable, 0);
}

TEST(PatchingExports, ShapedInt32AndUnicodeArraysKeepTheirShape) {
    const std::vector<std::int32_t> ids{1, -2, 3, 4, 5, 70000};
    const std::uint64_t shape[] = {2, 3};
    const std::vector<std::byte> i4 = attn::io::npy_i4_bytes(ids, shape);
    const attn::io::NpyHeader h = attn::io::parse_npy_header(i4, "ids.npy");
    EXPECT_EQ(h.type, attn::io::NpyType::Int32);
    EXPECT_EQ(h.shape, (std::vector<std::uint64_t>{2, 3}));
    std::int32_t last = 0;
    std::memcpy(&last, i4.data() + h.data_offset + 5 * 4, 4);
    EXPECT_EQ(last, 70000);
    const std::vector<std::string> names{"a", "b", "c", "d", "é", "ff"};
    const std::vector<std::byte> u = attn::io::npy_string_bytes(names, shape);
    const attn::io::NpyHeader uh = attn::io::parse_npy_header(u, "tokens.npy");
    EXPECT_EQ(uh.type, attn::io::NpyType::Unicode);
    EXPECT_EQ(uh.shape, (std::vector<std::uint64_t>{2, 3}));
    EXPECT_EQ(uh.dtype_name(), "<U2");
    const std::uint64_t wrong[] = {4, 2};
    EXPECT_THROW(attn::io::npy_i4_bytes(ids, wrong), attn::ShapeError);
    EXPECT_THROW(attn::io::npy_string_bytes(names, wrong), attn::ShapeError);
}

}  // namespace
