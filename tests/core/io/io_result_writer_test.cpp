// Tests of the compute output writer (.npz and .json of every stage of every head).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../io_test_util.hpp"
#include "../reference_writers.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/io/output/result_writer.hpp"
#include "attn/util/error.hpp"

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
    reference::write_result(dir.file("out.npz"), {r});
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
    const io::NpzMembers m = reference::result_members({r, r, r});
    io::NpyView raw(m[0].second, "raw");
    EXPECT_EQ(m[0].first, "raw");
    EXPECT_EQ(raw.header().shape.size(), 4u);
    EXPECT_EQ(raw.header().shape[0], 3u);
    io_test::TempDir dir;
    reference::write_result(dir.file("out.json"), {r});
    const auto j = nlohmann::json::parse(std::ifstream(dir.file("out.json")));
    EXPECT_EQ(j["format"], "attnscope-compute");
    EXPECT_TRUE(j["layers"][0]["heads"][0]["masked"][0][1].is_null());
    EXPECT_FLOAT_EQ(j["layers"][0]["heads"][1]["weights"][2][0].get<float>(),
                    r.heads[1].weights(2, 0));
    EXPECT_THROW(io::ResultStream(dir.file("out.txt"), 1), ArgumentError);
}

/// Three layers that differ (a seed each), as `attnscope compute` streams them.
std::vector<SceneResult> three_layers() {
    std::vector<SceneResult> layers;
    for (int l = 0; l < 3; ++l) {
        SceneSpec spec;
        spec.mask.kind = MaskKind::Causal;
        spec.seed = 7 + static_cast<std::uint64_t>(l);
        layers.push_back(compute_scene(spec));
        layers.back().layer = l;
    }
    return layers;
}

std::string as_string(const std::vector<std::byte>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::uint32_t le(const std::string& b, std::size_t at, int n) {
    std::uint32_t v = 0;
    for (int i = n; i-- > 0;)
        v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
    return v;
}

/// A stored zip archive with the modification times and dates of its entries zeroed.
std::string without_times(std::string b) {
    std::size_t at = 0;
    while (at + 30 <= b.size() && le(b, at, 4) == 0x04034b50) {  // local headers and data
        std::fill_n(b.begin() + static_cast<std::ptrdiff_t>(at + 10), 4, '\0');
        at += 30 + le(b, at + 26, 2) + le(b, at + 28, 2) + le(b, at + 18, 4);
    }
    while (at + 46 <= b.size() && le(b, at, 4) == 0x02014b50) {  // central directory
        std::fill_n(b.begin() + static_cast<std::ptrdiff_t>(at + 12), 4, '\0');
        at += 46 + le(b, at + 28, 2) + le(b, at + 30, 2) + le(b, at + 32, 2);
    }
    EXPECT_EQ(le(b, at, 4), 0x06054b50u);  // straight to the end record
    return b;
}

TEST(ResultStream, LayerByLayerNpzHoldsTheSameBytesAsTheInMemoryWriter) {
    const std::vector<SceneResult> layers = three_layers();
    const io::NpzMembers expected = reference::result_members(layers);
    io_test::TempDir dir;
    // Also with every size and offset forced into zip64 fields.
    for (const std::uint64_t zip64 : {io::ZipWriter::kZip64Limit, std::uint64_t{0}}) {
        {
            io::ResultStream out(dir.file("out.npz"), layers.size(), zip64);
            for (const auto& r : layers)
                out.add(r);
            out.finish();
        }
        const io::NpzMembers got = io::read_npz(dir.file("out.npz"));
        ASSERT_EQ(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].first, expected[i].first);
            EXPECT_TRUE(got[i].second == expected[i].second) << expected[i].first;
        }
        if (zip64 != 0) {  // and the archive is byte for byte what libzip writes, but the clock
            EXPECT_EQ(without_times(file_text(dir.file("out.npz"))),
                      without_times(as_string(reference::npz_bytes(expected))));
        }
    }
}

TEST(ResultStream, LayerByLayerJsonHoldsEveryNumberOfEveryLayer) {
    const std::vector<SceneResult> layers = three_layers();
    io_test::TempDir dir;
    reference::write_result(dir.file("out.json"), layers);
    const auto j = nlohmann::json::parse(std::ifstream(dir.file("out.json")));
    EXPECT_EQ(j["q_tokens"].get<std::vector<std::string>>(), layers[0].q_tokens);
    ASSERT_EQ(j["layers"].size(), layers.size());
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const auto& lj = j["layers"][l];
        EXPECT_EQ(lj["layer"].get<int>(), layers[l].layer);
        ASSERT_EQ(lj["heads"].size(), layers[l].heads.size());
        for (std::size_t h = 0; h < layers[l].heads.size(); ++h) {
            const HeadResult& head = layers[l].heads[h];
            const auto& hj = lj["heads"][h];
            EXPECT_FLOAT_EQ(hj["scale_factor"].get<float>(), head.scale_factor);
            const Matrix scaled = head.scaled_matrix(), masked = head.masked_matrix();
            const std::pair<const char*, const Matrix*> stages[] = {{"raw", &head.raw},
                                                                    {"scaled", &scaled},
                                                                    {"masked", &masked},
                                                                    {"weights", &head.weights},
                                                                    {"output", &head.output}};
            for (const auto& [name, m] : stages) {
                ASSERT_EQ(hj[name].size(), static_cast<std::size_t>(m->rows())) << name;
                for (Index i = 0; i < m->rows(); ++i)
                    for (Index k = 0; k < m->cols(); ++k) {
                        const auto& v =
                            hj[name][static_cast<std::size_t>(i)][static_cast<std::size_t>(k)];
                        if (std::isfinite((*m)(i, k)))  // −inf (masked) is written null
                            ASSERT_EQ(v.get<float>(), (*m)(i, k)) << name << " " << i << "," << k;
                        else
                            ASSERT_TRUE(v.is_null()) << name << " " << i << "," << k;
                    }
            }
        }
    }
}

TEST(ResultStream, MismatchedOrMissingLayersLeaveNoFile) {
    std::vector<SceneResult> layers = three_layers();
    io_test::TempDir dir;
    for (const char* name : {"a.npz", "a.json"}) {
        const std::string path = dir.file(name);
        {
            io::ResultStream out(path, 3);
            out.add(layers[0]);
            out.add(layers[1]);
            EXPECT_THROW(out.finish(), ArgumentError);  // one layer short
        }
        EXPECT_FALSE(std::filesystem::exists(path)) << name;
        EXPECT_TRUE(std::filesystem::is_empty(dir.path)) << name;
    }
    SceneResult fewer = layers[1];
    fewer.heads.pop_back();
    io::ResultStream heads(dir.file("b.npz"), 2);
    heads.add(layers[0]);
    EXPECT_THROW(heads.add(fewer), ShapeError);
    SceneResult wider = layers[1];
    wider.heads[1].weights.conservativeResize(Eigen::NoChange, wider.heads[1].weights.cols() + 1);
    io::ResultStream shapes(dir.file("c.npz"), 2);
    shapes.add(layers[0]);
    EXPECT_THROW(shapes.add(wider), ShapeError);
    EXPECT_THROW(io::ResultStream(dir.file("no/such/dir/d.npz"), 1), Error);
}

}  // namespace

namespace {

/// A scene whose heads soft-cap their scores at 3 (as Gemma 2's layers would), from raw scores
/// computed by compute_scene.
SceneResult softcapped_scene() {
    SceneSpec spec;
    spec.mask.kind = MaskKind::Causal;
    SceneResult r = compute_scene(spec);
    for (HeadResult& h : r.heads) {
        AttentionParams p;
        p.mask = spec.mask;
        p.softcap = 3.f;
        HeadResult capped = attend_scores(h.raw, float(r.d_k), p);
        capped.output = h.output;
        h = std::move(capped);
    }
    return r;
}

TEST(ResultStream, SoftcappedIsWrittenWhenALayerSoftCaps) {
    const SceneResult r = softcapped_scene();
    io_test::TempDir dir;
    {
        io::ResultStream out(dir.file("out.npz"), 1);
        out.select_stages({"raw", "scaled", "softcapped", "masked", "weights"});
        out.add(r);
        out.finish();
    }
    const io::NpzMembers m = io::read_npz(dir.file("out.npz"));
    std::vector<std::pair<std::string, io::NpyView>> views;
    for (const auto& [name, bytes] : m)
        views.emplace_back(name, io::NpyView(bytes, name));
    const io::NpyView* capped = find(views, "softcapped");
    ASSERT_TRUE(capped);
    const auto H = static_cast<std::uint64_t>(r.heads.size());
    const auto n = static_cast<std::uint64_t>(r.q_tokens.size());
    EXPECT_EQ(capped->header().shape, (std::vector<std::uint64_t>{H, n, n}));
    // 3 · tanh(raw / (3 √d_k)), in double from the raw scores the file holds.
    Matrix raw, got;
    find(views, "raw")->copy_matrix(H - 1, raw);
    capped->copy_matrix(H - 1, got);
    const double scale = 1.0 / std::sqrt(double(r.d_k));
    for (Index i = 0; i < raw.rows(); ++i)
        for (Index j = 0; j < raw.cols(); ++j)
            EXPECT_NEAR(got(i, j), 3.0 * std::tanh(raw(i, j) * scale / 3.0), 2e-6) << i << j;
    // A scene that does not soft-cap writes no softcapped array, even when asked for.
    SceneSpec plain;
    plain.mask.kind = MaskKind::Causal;
    {
        io::ResultStream out(dir.file("plain.npz"), 1);
        out.select_stages({"scaled", "softcapped"});
        out.add(compute_scene(plain));
        out.finish();
    }
    const io::NpzMembers p = io::read_npz(dir.file("plain.npz"));
    EXPECT_TRUE(std::none_of(p.begin(), p.end(), [](const auto& e) {
        return e.first == "softcapped.npy" || e.first == "softcapped";
    }));
    EXPECT_TRUE(std::any_of(p.begin(), p.end(), [](const auto& e) {
        return e.first == "scaled.npy" || e.first == "scaled";
    }));
    // The JSON output holds it too, null where the cap is not finite (never here).
    {
        io::ResultStream out(dir.file("out.json"), 1);
        out.add(r);
        out.finish();
    }
    std::ifstream in(dir.file("out.json"));
    const nlohmann::json j = nlohmann::json::parse(in);
    const nlohmann::json& head = j["layers"][0]["heads"][0];
    ASSERT_TRUE(head.contains("softcapped"));
    EXPECT_NEAR(head["softcapped"][1][0].get<double>(),
                3.0 * std::tanh(r.heads[0].raw(1, 0) / std::sqrt(double(r.d_k)) / 3.0), 2e-6);
}

}  // namespace
