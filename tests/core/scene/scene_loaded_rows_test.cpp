// A long .npy read row by row from its memory map (issue 13: loaded long files get the streamed
// overview without converting every head) against the same numbers converted to matrices.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "../io_test_util.hpp"
#include "../loaded_rows_util.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/io/session/session.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;

// 4 heads × 2100² = 17.6 M cells: just past kWeightCellLimit (16.8 M), so the file is streamed.
constexpr Index kHeads = 4, kTokens = 2100;

/// Raw scores N(0, 3²), or (weights) each row's softmax of them; head 3's row 5 is all zero.
std::vector<float> tensor(bool weights) {
    attn::Rng rng(2100);
    std::vector<float> v(static_cast<std::size_t>(kHeads * kTokens * kTokens));
    for (float& x : v)
        x = static_cast<float>(3.0 * rng.normal());
    if (!weights) return v;
    for (Index r = 0; r < kHeads * kTokens; ++r) {
        float* row = v.data() + r * kTokens;
        double sum = 0;
        for (Index j = 0; j < kTokens; ++j)
            sum += std::exp(static_cast<double>(row[j]));
        for (Index j = 0; j < kTokens; ++j)
            row[j] = static_cast<float>(std::exp(static_cast<double>(row[j])) / sum);
    }
    std::fill_n(v.data() + (3 * kTokens + 5) * kTokens, kTokens, 0.f);
    return v;
}

using loaded_rows::Pair;

/// The file loaded (streamed) and the same file converted to matrices, as two scenes.
Pair scenes(const std::string& path, bool scores, attn::MaskKind mask, float temperature) {
    auto mapped = std::make_shared<attn::AttentionData>(attn::io::load_npy_attention(path));
    const attn::AttentionComponent& c = mapped->components.at(0);
    EXPECT_TRUE(c.rows != nullptr);
    EXPECT_TRUE(c.mats.empty());
    EXPECT_EQ(c.are_scores, scores);
    EXPECT_EQ(c.heads, kHeads);
    EXPECT_EQ(static_cast<Index>(c.q_tokens.size()), kTokens);
    const attn::io::NpyFile file(path);
    auto memory = std::make_shared<attn::AttentionData>(*mapped);
    memory->components[0] = attn::io::component_from_npy(file.view(), c.name, c.are_scores);
    memory->components[0].q_tokens = c.q_tokens;
    memory->components[0].k_tokens = c.k_tokens;
    EXPECT_EQ(memory->components[0].mats.size(), std::size_t(kHeads));
    attn::SceneSpec spec;
    spec.mask.kind = mask;
    spec.temperature = temperature;
    return loaded_rows::scene_pair(spec, mapped, memory);
}

void expect_same(const Pair& p, bool scores) {
    loaded_rows::expect_same(p.mapped, p.memory, scores, {301, 257, 1003, 511, 64},
                             {Index(0), Index(5), Index(1049), kTokens - 1});
}

TEST(LoadedLongFile, RawScoresWithACausalMaskMatchTheConvertedFile) {
    io_test::TempDir dir;
    const std::string path = dir.file("scores.npy");
    const std::vector<std::uint64_t> shape{kHeads, kTokens, kTokens};
    attn::io::write_npy(path, tensor(false), shape);
    const Pair p = scenes(path, true, attn::MaskKind::Causal, 0.7f);
    expect_same(p, true);
    // The causal mask hides key n−1 from every query but the last.
    EXPECT_TRUE(p.mapped.is_masked(0, 0, kTokens - 1));
    EXPECT_FALSE(p.mapped.is_masked(0, kTokens - 1, kTokens - 1));
    // Only the overview and row statistics are estimated, not n² · heads floats.
    attn::SceneSpec spec;
    spec.data = std::make_shared<attn::AttentionData>(attn::io::load_npy_attention(path));
    EXPECT_LT(attn::estimate_scene(spec, attn::Storage::Stages).bytes, 100e6);
    EXPECT_GT(double(kHeads * kTokens * kTokens) * 4, 70e6);
}

TEST(LoadedLongFile, WeightsMatchTheConvertedFile) {
    io_test::TempDir dir;
    const std::string path = dir.file("weights.npy");
    const std::vector<std::uint64_t> shape{1, kHeads, kTokens, kTokens};
    attn::io::write_npy(path, tensor(true), shape);
    const Pair p = scenes(path, false, attn::MaskKind::None, 1.f);
    expect_same(p, false);
    EXPECT_EQ(p.mapped.heads[3].empty_rows[5], 1);
    EXPECT_FLOAT_EQ(p.mapped.weights_row(3, 5).sum(), 0.f);
}

TEST(LoadedLongFile, NaNIsRefusedWithItsPlaceAndSessionsNameTheFile) {
    io_test::TempDir dir;
    const std::string path = dir.file("nan.npy");
    std::vector<float> v = tensor(false);
    v[static_cast<std::size_t>((2 * kTokens + 7) * kTokens + 11)] = std::nanf("");
    const std::vector<std::uint64_t> shape{kHeads, kTokens, kTokens};
    attn::io::write_npy(path, v, shape);
    attn::SceneSpec spec;
    spec.data = std::make_shared<attn::AttentionData>(attn::io::load_npy_attention(path));
    try {
        attn::compute_scene(spec);
        FAIL() << "NaN accepted";
    } catch (const attn::NonFiniteError& e) {
        EXPECT_NE(std::string(e.what()).find("head 2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("row 7, column 11"), std::string::npos) << e.what();
    }
    // A session names the file; embedding its data (a copy of every number) is refused.
    attn::io::Session session;
    session.spec = spec;
    EXPECT_NE(attn::io::session_to_json(session).find("nan.npy"), std::string::npos);
    session.embed_data = true;
    EXPECT_THROW(attn::io::session_to_json(session), attn::ArgumentError);
}

TEST(LoadedLongFile, SmallOrNonFloat32FilesAreStillConverted) {
    io_test::TempDir dir;
    const std::string path = dir.file("small.npy");
    const std::vector<std::uint64_t> shape{2, 30, 30};
    attn::io::write_npy(path, std::vector<float>(1800, 0.5f), shape);
    const attn::AttentionData d = attn::io::load_npy_attention(path);
    EXPECT_EQ(d.components[0].rows, nullptr);
    EXPECT_EQ(d.components[0].mats.size(), 2u);
}

}  // namespace
