// Tests of the compute output writer (.npz and .json of every stage of every head).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/error.hpp"
#include "attn/io/npy.hpp"
#include "attn/io/numpy_attention.hpp"
#include "attn/io/result_writer.hpp"
#include "io_test_util.hpp"

namespace {

using namespace attn;

const io::NpyView* find(const std::vector<std::pair<std::string, io::NpyView>>& v,
                        const std::string& name) {
    for (const auto& [n, view] : v)
        if (n == name) return &view;
    return nullptr;
}

TEST(ResultWriter, NpzHoldsEveryStageOfEveryHead) {
    SceneSpec spec;
    spec.mask.kind = MaskKind::Causal;
    const SceneResult r = compute_scene(spec);
    io_test::TempDir dir;
    io::write_result(dir.file("out.npz"), r);
    const io::NpzMembers m = io::read_npz(dir.file("out.npz"));
    std::vector<std::pair<std::string, io::NpyView>> views;
    for (const auto& [name, bytes] : m)
        views.emplace_back(name, io::NpyView(bytes, name));
    const auto H = static_cast<std::uint64_t>(r.heads.size());
    const auto nq = static_cast<std::uint64_t>(r.q_tokens.size());
    for (const char* stage : {"raw", "scaled", "masked", "weights"}) {
        const io::NpyView* v = find(views, stage);
        ASSERT_TRUE(v) << stage;
        EXPECT_EQ(v->header().shape, (std::vector<std::uint64_t>{H, nq, nq})) << stage;
    }
    Matrix w;
    find(views, "weights")->copy_matrix(H - 1, w);
    EXPECT_EQ(w, r.heads.back().weights);
    Matrix masked;
    find(views, "masked")->copy_matrix(0, masked, false);
    EXPECT_TRUE(std::isinf(masked(0, 1)));
    ASSERT_TRUE(find(views, "output"));
    EXPECT_EQ(find(views, "q_tokens")->to_strings(), r.q_tokens);
    EXPECT_TRUE(find(views, "Q"));
    EXPECT_TRUE(find(views, "layer_output"));
}

TEST(ResultWriter, SeveralLayersGainALeadingAxisAndJsonWritesNullForMasked) {
    SceneSpec spec;
    spec.mask.kind = MaskKind::Causal;
    const SceneResult r = compute_scene(spec);
    const io::NpzMembers m = io::result_members({r, r, r});
    io::NpyView raw(m[0].second, "raw");
    EXPECT_EQ(m[0].first, "raw");
    EXPECT_EQ(raw.header().shape.size(), 4u);
    EXPECT_EQ(raw.header().shape[0], 3u);
    const auto j = nlohmann::json::parse(io::result_json({r}));
    EXPECT_EQ(j["format"], "attnscope-compute");
    EXPECT_TRUE(j["layers"][0]["heads"][0]["masked"][0][1].is_null());
    EXPECT_FLOAT_EQ(j["layers"][0]["heads"][1]["weights"][2][0].get<float>(),
                    r.heads[1].weights(2, 0));
    io_test::TempDir dir;
    EXPECT_THROW(io::write_result(dir.file("out.txt"), r), ArgumentError);
}

}  // namespace
