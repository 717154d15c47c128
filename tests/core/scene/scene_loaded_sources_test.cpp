// Every long source read row by row (issue 13): stored and deflated .npz members, float64,
// float16, big-endian and Fortran-order arrays, [H,n,n] and [L,H,n,n] — small files, with the
// streaming threshold lowered — give the overview, statistics and rows of the same file
// converted to matrices; malformed ones are refused with their message.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../io_test_util.hpp"
#include "../loaded_rows_util.hpp"
#include "../loaded_sources_util.hpp"
#include "../reference_writers.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Index;
using namespace loaded_sources;

using loaded_rows::Pair;

/// The file loaded (streamed: the threshold is low) and converted (threshold restored).
Pair scenes(const std::string& path, const attn::MaskSpec& mask, Index layer) {
    auto mapped = std::make_shared<attn::AttentionData>(attn::io::load_attention(path));
    EXPECT_TRUE(mapped->components.at(0).rows != nullptr) << path;
    EXPECT_TRUE(mapped->components[0].mats.empty());
    std::shared_ptr<attn::AttentionData> memory;
    {
        const Threshold converted(0);
        memory = std::make_shared<attn::AttentionData>(attn::io::load_attention(path));
    }
    EXPECT_EQ(memory->components.at(0).rows, nullptr);
    attn::SceneSpec spec;
    spec.mask = mask;
    spec.layer = layer;
    return loaded_rows::scene_pair(spec, mapped, memory);
}

/// The masks every source is checked with: none, causal, and padding (the last 5 keys).
std::vector<attn::MaskSpec> masks(Index nk) {
    attn::MaskSpec none, causal, padding;
    causal.kind = attn::MaskKind::Causal;
    padding.kind = attn::MaskKind::Padding;
    padding.key_valid.assign(static_cast<std::size_t>(nk), true);
    for (Index j = nk - 5; j < nk; ++j)
        padding.key_valid[static_cast<std::size_t>(j)] = false;
    return {none, causal, padding};
}

/// Raw scores of `shape` at `path`: the same scenes either way, and the rows hold the
/// reference numbers exactly (the right element for every dtype and memory order).
void expect_scores_source(const std::string& path, const std::vector<std::uint64_t>& shape) {
    const Threshold low(100);
    const std::size_t n = shape.size();
    const Index layers = n == 4 ? Index(shape[0]) : 1, heads = Index(shape[n - 3]);
    const Index nq = Index(shape[n - 2]), nk = Index(shape[n - 1]);
    for (const attn::MaskSpec& mask : masks(nk)) {
        SCOPED_TRACE(path + ", mask " + std::string(attn::to_string(mask.kind)));
        const Index layer = layers - 1;
        const Pair p = scenes(path, mask, layer);
        ASSERT_EQ(Index(p.mapped.heads.size()), heads);
        loaded_rows::expect_same(p.mapped, p.memory, true, {nq / 3, nq / 2, 1, nk - 3, 4},
                                 {Index(0), nq / 2, nq - 1});
        for (Index h = 0; h < heads; ++h)
            for (const Index i : {Index(0), nq - 1}) {
                const Eigen::RowVectorXf row = p.mapped.raw_row(h, i);
                const std::uint64_t base =
                    static_cast<std::uint64_t>(((layer * heads + h) * nq + i) * nk);
                for (Index j = 0; j < nk; ++j)
                    ASSERT_EQ(row(j), float(value(base + std::uint64_t(j)))) << h << "," << i;
            }
    }
}

TEST(LoadedLongSources, StoredNpzMemberIsReadInPlace) {
    io_test::TempDir dir;
    const std::vector<std::uint64_t> shape{2, 3, 40, 40};
    const std::string path = dir.file("stored.npz");
    write_bytes(path, reference::npz_bytes({{"scores", npy(shape, "<f4", false)}}));
    expect_scores_source(path, shape);
    // In place: no temporary file is needed, so no free disk space either.
    const Threshold low(100);
    const NoDiskSpace full;
    EXPECT_NE(attn::io::load_attention(path).components[0].rows, nullptr);
}

TEST(LoadedLongSources, DeflatedNpzMemberIsInflatedOnce) {
    io_test::TempDir dir;
    const std::vector<std::uint64_t> shape{2, 3, 40, 40};
    const std::string path = dir.file("deflated.npz");
    write_bytes(path, reference::npz_bytes({{"scores", npy(shape, "<f4", false)}}, true));
    expect_scores_source(path, shape);
}

TEST(LoadedLongSources, OtherDtypesAndByteOrdersAreConvertedPerRow) {
    io_test::TempDir dir;
    const std::vector<std::uint64_t> shape{3, 40, 40};
    for (const char* descr : {"<f8", "<f2", ">f4", ">f8", ">f2"}) {
        const std::string path = dir.file(std::string("scores_") + (descr[0] == '<' ? "le" : "be") +
                                          (descr + 1) + ".npy");
        write_bytes(path, npy(shape, descr, false));
        expect_scores_source(path, shape);
    }
}

TEST(LoadedLongSources, FortranOrderIsTransposedToRowsInTiles) {
    io_test::TempDir dir;
    // 2 × 600 rows and 1100 keys: more than one tile (1024 × 1024) each way, partial ones too.
    const std::vector<std::uint64_t> wide{2, 600, 1100};
    const std::string path = dir.file("fortran_be_f8.npy");
    write_bytes(path, npy(wide, ">f8", true));
    expect_scores_source(path, wide);
    const std::vector<std::uint64_t> four{2, 3, 40, 40};
    const std::string f4 = dir.file("fortran_f4.npy");
    write_bytes(f4, npy(four, "<f4", true));
    expect_scores_source(f4, four);
    // A deflated Fortran-order float16 member: inflated, then transposed.
    const std::string npz = dir.file("fortran_f2.npz");
    write_bytes(npz, reference::npz_bytes({{"scores", npy(four, "<f2", true)}}, true));
    expect_scores_source(npz, four);
}

TEST(LoadedLongSources, NumpyWrittenArchives) {
    // tests/core/data/make_long_fixtures.py: np.savez (stored, ZIP64 local headers) and
    // np.savez_compressed of a big-endian float64 Fortran-order array.
    const std::vector<std::uint64_t> shape{2, 3, 12, 12};
    for (const char* file : {"npy/long_savez_f4.npz", "npy/long_savez_f2.npz",
                             "npy/long_savez_compressed_f8_be_fortran.npz"})
        expect_scores_source(io_test::data(file), shape);
}

TEST(LoadedLongSources, WeightsAndScoresMembersTogether) {
    const Threshold low(100);
    io_test::TempDir dir;
    const std::vector<std::uint64_t> shape{1, 2, 40, 40};
    const std::string path = dir.file("both.npz");
    write_bytes(path, reference::npz_bytes({{"scores", npy(shape, "<f4", false)},
                                            {"attention", softmax_npy(shape)}}));
    const attn::AttentionData d = attn::io::load_attention(path);
    ASSERT_EQ(d.components.size(), 2u);
    EXPECT_TRUE(d.components[0].are_scores);
    EXPECT_FALSE(d.components[1].are_scores);
    EXPECT_EQ(d.components[1].name, "attention");
    auto mapped = std::make_shared<attn::AttentionData>(d);
    std::shared_ptr<attn::AttentionData> memory;
    {
        const Threshold converted(0);
        memory = std::make_shared<attn::AttentionData>(attn::io::load_attention(path));
    }
    attn::SceneSpec spec;
    spec.component = 1;
    const Pair p = loaded_rows::scene_pair(spec, mapped, memory);
    loaded_rows::expect_same(p.mapped, p.memory, false, {3, 17, 5, 29, 8}, {Index(0), Index(39)});
}

TEST(LoadedLongSources, ProgressRunsForwardThroughInflatingAndTransposingAndCancels) {
    const Threshold low(100);
    io_test::TempDir dir;
    const std::vector<std::uint64_t> shape{2, 3, 40, 40};
    const std::string path = dir.file("both_deflated.npz");
    write_bytes(
        path, reference::npz_bytes(
                  {{"scores", npy(shape, "<f2", true)}, {"attention", softmax_npy(shape)}}, true));
    io_test::Recorder r;
    const attn::AttentionData d = attn::io::load_npz_attention(path, &r);
    ASSERT_EQ(d.components.size(), 2u);
    EXPECT_NE(d.components[0].rows, nullptr);
    EXPECT_NE(d.components[1].rows, nullptr);
    // Two inflations (a quarter each), the transposition of the Fortran-order scores, and each
    // component's end: never backwards.
    ASSERT_GE(r.seen.size(), 5u);
    for (std::size_t k = 1; k < r.seen.size(); ++k)
        EXPECT_LE(r.seen[k - 1], r.seen[k]) << k;
    EXPECT_DOUBLE_EQ(r.seen.back(), 1.0);
    EXPECT_DOUBLE_EQ(r.seen.front(), 0.25);  // the first member inflated
    // Asked to stop while the first member is inflated: nothing more is done.
    io_test::Recorder stop;
    stop.cancel_after = 0.2;
    EXPECT_THROW(attn::io::load_npz_attention(path, &stop), attn::Cancelled);
    EXPECT_EQ(stop.seen.size(), 1u);
}

}  // namespace
