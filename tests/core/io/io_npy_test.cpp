// Tests of the .npy reader and writer: every dtype, order and byte order loads to the same
// numbers; float16 specials decode exactly; unicode tokens; header strictness.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "../io_test_util.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;
using io_test::data;

std::vector<float> reference(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = (static_cast<float>(i) - static_cast<float>(n / 2)) / 16.f;
    return v;
}

class EveryLayout : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryLayout, LoadsTheReferenceNumbers) {
    const io::NpyArray a = io::read_npy(data("npy/" + GetParam()));
    ASSERT_EQ(a.shape, (std::vector<std::uint64_t>{2, 3, 4, 5}));
    EXPECT_EQ(a.values, reference(120));
}

INSTANTIATE_TEST_SUITE_P(Npy, EveryLayout,
                         ::testing::Values("ref_f2_le_c.npy", "ref_f2_le_f.npy", "ref_f2_be_c.npy",
                                           "ref_f2_be_f.npy", "ref_f4_le_c.npy", "ref_f4_le_f.npy",
                                           "ref_f4_be_c.npy", "ref_f4_be_f.npy", "ref_f8_le_c.npy",
                                           "ref_f8_le_f.npy", "ref_f8_be_c.npy", "ref_f8_be_f.npy",
                                           "ref_f4_v2.npy", "ref_f4_v3.npy"));

TEST(Npy, AttentionMatricesFollowLayerHeadOrderInEveryLayout) {
    const auto ref = reference(120);
    for (const char* f : {"ref_f4_le_c.npy", "ref_f2_be_f.npy", "ref_f8_le_f.npy"}) {
        const AttentionData d = io::load_npy_attention(data(std::string("npy/") + f));
        ASSERT_EQ(d.components.size(), 1u);
        const AttentionComponent& c = d.components[0];
        EXPECT_EQ(c.layers, 2);
        EXPECT_EQ(c.heads, 3);
        EXPECT_TRUE(c.are_scores) << "negative entries cannot be weights";
        EXPECT_EQ(c.q_tokens, (std::vector<std::string>{"0", "1", "2", "3"}));
        EXPECT_EQ(c.k_tokens.size(), 5u);
        for (Index l = 0; l < 2; ++l)
            for (Index h = 0; h < 3; ++h)
                for (Index i = 0; i < 4; ++i)
                    for (Index j = 0; j < 5; ++j)
                        ASSERT_EQ(c.at(l, h)(i, j),
                                  ref[static_cast<std::size_t>(((l * 3 + h) * 4 + i) * 5 + j)])
                            << f;
    }
}

TEST(Npy, ThreeDimensionalFortranBigEndian) {
    const AttentionData d = io::load_npy_attention(data("npy/ref_3d_f8_be_f.npy"));
    const AttentionComponent& c = d.components[0];
    EXPECT_EQ(c.layers, 1);
    EXPECT_EQ(c.heads, 3);
    const auto ref = reference(60);
    EXPECT_EQ(c.at(0, 2)(3, 4), ref[59]);
    EXPECT_EQ(c.at(0, 1)(0, 1), ref[21]);
}

TEST(Npy, TwoDimensionalIsOneHead) {
    const AttentionData d = io::load_npy_attention(data("npy/ref_2d_f4.npy"));
    EXPECT_EQ(d.components[0].layers, 1);
    EXPECT_EQ(d.components[0].heads, 1);
    EXPECT_EQ(d.components[0].at(0, 0).rows(), 4);
}

TEST(Npy, WeightsAreRecognisedByTheirRows) {
    EXPECT_FALSE(io::load_npy_attention(data("npy/weights_3d.npy")).components[0].are_scores);
    EXPECT_EQ(io::load_npy_attention(data("npy/weights_3d.npy")).components[0].name, "attention");
    EXPECT_TRUE(io::load_npy_attention(data("npy/scores_3d.npy")).components[0].are_scores);
}

TEST(Npy, IntegersAndBooleans) {
    const auto i32 = io::read_npy(data("npy/int32_le.npy"));
    const auto i64 = io::read_npy(data("npy/int64_be.npy"));
    const auto b = io::read_npy(data("npy/bool.npy"));
    for (std::size_t k = 0; k < 20; ++k) {
        EXPECT_EQ(i32.values[k], static_cast<float>(static_cast<int>(k) - 10));
        EXPECT_EQ(i64.values[k], i32.values[k]);
        EXPECT_EQ(b.values[k], (static_cast<int>(k) - 10) % 3 == 0 ? 1.f : 0.f);
    }
}

TEST(Npy, Float16SpecialsDecodeExactly) {
    for (const char* f : {"npy/f2_specials.npy", "npy/f2_specials_be.npy"}) {
        const auto bytes = io_test::data(f);
        io::NpyFile file(bytes);
        const auto v = file.view().to_floats(false);
        ASSERT_EQ(v.size(), 12u);
        EXPECT_EQ(v[0], 0.f);
        EXPECT_FALSE(std::signbit(v[0]));
        EXPECT_TRUE(std::signbit(v[1]));
        EXPECT_EQ(v[2], std::ldexp(1.f, -24));     // smallest subnormal
        EXPECT_EQ(v[3], std::ldexp(1023.f, -24));  // largest subnormal
        EXPECT_EQ(v[4], std::ldexp(1.f, -14));     // smallest normal
        EXPECT_EQ(v[5], 65504.f);
        EXPECT_EQ(v[6], std::numeric_limits<float>::infinity());
        EXPECT_EQ(v[7], -std::numeric_limits<float>::infinity());
        EXPECT_TRUE(std::isnan(v[8]));
        EXPECT_EQ(v[9], 1.f);
        EXPECT_EQ(v[10], -2.f);
        EXPECT_EQ(v[11], 0.333251953125f);
        EXPECT_THROW(file.view().to_floats(true), FormatError);
    }
}

TEST(Npy, UnicodeTokensInBothByteOrders) {
    const std::vector<std::string> want = {"The", "cat", "sat", "on", "the", "mät", "😀"};
    for (const char* f : {"npy/tokens_le.npy", "npy/tokens_be.npy"}) {
        io::NpyFile file(data(f));
        EXPECT_EQ(file.view().to_strings(), want) << f;
    }
}

TEST(Npy, WriterRoundTripsAndPadsTo64Bytes) {
    io_test::TempDir dir;
    Matrix m(3, 4);
    m << 1.f, -2.5f, 3e-8f, 1e30f, 0.f, -0.f, 7.f, 8.f, 0.1f, 0.2f, 0.3f, 0.4f;
    io::write_npy(dir.file("m.npy"), m);
    io::NpyFile f(dir.file("m.npy"));
    EXPECT_EQ(f.header().data_offset % 64, 0u);
    EXPECT_EQ(f.header().shape, (std::vector<std::uint64_t>{3, 4}));
    EXPECT_EQ(f.matrix(0), m);
    const auto s = io::npy_string_bytes({"a", "mät", ""});
    io::NpyView v(s, "s.npy");
    EXPECT_EQ(v.to_strings(), (std::vector<std::string>{"a", "mät", ""}));
}

TEST(Npy, HeaderAcceptsPythonLiteralVariants) {
    // Double quotes, no spaces, any key order, no trailing comma, no padding: still valid.
    const std::string dict = "{\"shape\":(2,),\"fortran_order\":False,'descr':'<f4'}\n";
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(dict.size());
    file += '\0';
    file += dict + std::string(8, '\0');
    const auto a = io::parse_npy(std::as_bytes(std::span(file.data(), file.size())), "lit.npy");
    EXPECT_EQ(a.shape, (std::vector<std::uint64_t>{2}));
    EXPECT_EQ(a.values, (std::vector<float>{0.f, 0.f}));
}

TEST(Npy, MatrixOutOfRangeAndUnicodeAsNumbersAreErrors) {
    io::NpyFile f(data("npy/ref_f4_le_c.npy"));
    EXPECT_EQ(f.view().matrix_count(), 6u);
    EXPECT_THROW(f.matrix(6), FormatError);
    io::NpyFile t(data("npy/tokens_le.npy"));
    EXPECT_THROW(t.view().to_floats(), FormatError);
}

}  // namespace

namespace {

using io_test::Recorder;

TEST(NpyProgress, ReportsEveryMatrixAndCancels) {
    Recorder r;
    attn::io::load_npy_attention(io_test::data("npy/ref_f4_le_c.npy"), &r);
    ASSERT_EQ(r.seen.size(), 6u);
    EXPECT_DOUBLE_EQ(r.seen.back(), 1.0);
    Recorder stop;
    stop.cancel_after = 0.5;
    EXPECT_THROW(attn::io::load_npy_attention(io_test::data("npy/ref_f4_le_c.npy"), &stop),
                 attn::Cancelled);
    EXPECT_EQ(stop.seen.size(), 3u);
}

}  // namespace

namespace {

/// A rows × cols matrix whose every row is the uniform distribution.
Matrix uniform_rows(Index rows, Index cols) {
    return Matrix::Constant(rows, cols, 1.f / static_cast<float>(cols));
}

TEST(NpyWrite, ShapedInt32AndUnicodeArraysKeepTheirShape) {
    const std::vector<std::int32_t> ids{1, -2, 3, 4, 5, 70000};
    const std::uint64_t shape[] = {2, 3};
    const std::vector<std::byte> i4 = io::npy_i4_bytes(ids, shape);
    const io::NpyHeader h = io::parse_npy_header(i4, "ids.npy");
    EXPECT_EQ(h.type, io::NpyType::Int32);
    EXPECT_EQ(h.shape, (std::vector<std::uint64_t>{2, 3}));
    std::int32_t last = 0;
    std::memcpy(&last, i4.data() + h.data_offset + 5 * 4, 4);
    EXPECT_EQ(last, 70000);
    const std::vector<std::string> names{"a", "b", "c", "d", "é", "ff"};
    const std::vector<std::byte> u = io::npy_string_bytes(names, shape);
    const io::NpyHeader uh = io::parse_npy_header(u, "tokens.npy");
    EXPECT_EQ(uh.type, io::NpyType::Unicode);
    EXPECT_EQ(uh.shape, (std::vector<std::uint64_t>{2, 3}));
    EXPECT_EQ(uh.dtype_name(), "<U2");
    const std::uint64_t wrong[] = {4, 2};
    EXPECT_THROW(io::npy_i4_bytes(ids, wrong), ShapeError);
    EXPECT_THROW(io::npy_string_bytes(names, wrong), ShapeError);
}

}  // namespace

TEST(NpyWeights, RowsSumToOneOrZeroWithoutNegatives) {
    // Widths around the eight-lane loop: whole lanes, a remainder, shorter than one lane.
    for (const Index cols : {Index{1}, Index{3}, Index{8}, Index{13}, Index{512}}) {
        Matrix m = uniform_rows(5, cols);
        EXPECT_TRUE(io::looks_like_weights({m})) << cols;
        m.row(2).setZero();  // a fully masked row
        EXPECT_TRUE(io::looks_like_weights({m})) << cols;
        m(4, cols - 1) += 0.9e-3f;  // inside the tolerance
        EXPECT_TRUE(io::looks_like_weights({m})) << cols;
        m(4, cols - 1) += 0.2e-3f;  // outside it
        EXPECT_FALSE(io::looks_like_weights({m})) << cols;
    }
    Matrix negative = uniform_rows(3, 11);
    negative(1, 10) = -1e-7f;  // a negative entry in the remainder, sum still ~1
    EXPECT_FALSE(io::looks_like_weights({negative}));
    negative = uniform_rows(3, 11);
    negative(2, 0) = -1e-7f;  // and inside the lanes
    EXPECT_FALSE(io::looks_like_weights({negative}));
    EXPECT_FALSE(io::looks_like_weights({uniform_rows(2, 16), Matrix::Constant(2, 16, 2.f)}));
}

TEST(NpyWeights, NonFiniteFoundPastTheFirstCopyChunk) {
    // 3 × 1000 little-endian float32 takes the copy-and-check path in chunks of 2048 values.
    io_test::TempDir dir;
    const std::string path = (dir.path / "big.npy").string();
    for (const float bad :
         {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()}) {
        std::vector<float> v(3000, 0.25f);
        v[2500] = bad;
        const std::uint64_t shape[] = {3, 1000};
        io::write_npy(path, v, shape);
        try {
            io::load_npy_attention(path);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const FormatError& e) {
            const std::string what = std::isnan(bad) ? "NaN" : bad > 0 ? "+Inf" : "-Inf";
            EXPECT_NE(std::string(e.what()).find(what + " at [2, 500]"), std::string::npos)
                << e.what();
        }
        v[2500] = std::numeric_limits<float>::max();  // finite, however large
        io::write_npy(path, v, shape);
        EXPECT_TRUE(io::load_npy_attention(path).components[0].are_scores);
    }
}
