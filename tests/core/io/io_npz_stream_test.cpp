// Stored .npz members are streamed through libzip straight into their matrices (memory released
// matrix by matrix): the numbers and the errors are those of reading the member whole.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "../io_test_util.hpp"
#include "../reference_writers.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using namespace attn;

std::vector<std::byte> file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(c.size());
    std::memcpy(out.data(), c.data(), c.size());
    return out;
}

TEST(NpzStream, ManyMatricesEqualTheirValues) {
    // [3,2,40,50] float32: each 8000-byte matrix spans page boundaries, so pages are released
    // while later matrices are still being read.
    const std::vector<std::uint64_t> shape{3, 2, 40, 50};
    std::vector<float> values(3 * 2 * 40 * 50);
    Rng rng(7);
    for (float& v : values)
        v = static_cast<float>(rng.uniform()) * 4.f - 2.f;
    const auto npz = reference::npz_bytes({{"scores", io::npy_bytes(values, shape)}});
    const AttentionData d = io::parse_npz_attention(npz, "big.npz");
    ASSERT_EQ(d.components.size(), 1u);
    const AttentionComponent& c = d.components[0];
    EXPECT_TRUE(c.are_scores);
    ASSERT_EQ(c.layers, 3);
    ASSERT_EQ(c.heads, 2);
    for (Index l = 0; l < 3; ++l)
        for (Index h = 0; h < 2; ++h)
            for (Index i = 0; i < 40; ++i)
                for (Index j = 0; j < 50; ++j)
                    ASSERT_EQ(c.at(l, h)(i, j),
                              values[static_cast<std::size_t>(((l * 2 + h) * 40 + i) * 50 + j)]);
}

TEST(NpzStream, EveryLayoutLoadsAsTheNpyItself) {
    // Fortran order, big endian, float16/64: the same numbers through the stream as from the .npy
    // (as raw scores: they have negative entries, which weights may not).
    for (const char* f : {"ref_f4_le_f.npy", "ref_f2_be_c.npy", "ref_f8_be_f.npy",
                          "ref_3d_f8_be_f.npy", "ref_f4_v2.npy"}) {
        const std::string path = io_test::data(std::string("npy/") + f);
        const AttentionData want = io::load_npy_attention(path);
        const auto npz = reference::npz_bytes({{"scores", file_bytes(path)}});
        const AttentionData got = io::parse_npz_attention(npz, f);
        ASSERT_EQ(got.components.size(), 1u) << f;
        const auto& a = want.components[0].mats;
        const auto& b = got.components[0].mats;
        ASSERT_EQ(a.size(), b.size()) << f;
        for (std::size_t k = 0; k < a.size(); ++k)
            EXPECT_EQ(a[k], b[k]) << f << " matrix " << k;
    }
}

TEST(NpzStream, NanInALaterMatrixIsNamed) {
    const std::vector<std::uint64_t> shape{4, 30, 30};
    std::vector<float> values(4 * 30 * 30, 0.5f);
    values[3 * 900 + 7 * 30 + 11] = std::numeric_limits<float>::quiet_NaN();
    const auto npz = reference::npz_bytes({{"scores", io::npy_bytes(values, shape)}});
    try {
        io::parse_npz_attention(npz, "nan.npz");
        FAIL() << "NaN accepted";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("NaN at [3, 7, 11]"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("nan.npz: scores.npy"), std::string::npos) << e.what();
    }
}

TEST(NpzStream, CorruptDataFailsOnItsCrc) {
    const std::vector<std::uint64_t> shape{2, 64, 64};
    std::vector<float> values(2 * 64 * 64, 0.25f);
    auto npz = reference::npz_bytes({{"attention", io::npy_bytes(values, shape)}});
    // Flip a byte in the middle of the data (0.25f → another finite float): only the CRC knows.
    const std::size_t at = npz.size() / 2;
    npz[at] = static_cast<std::byte>(std::to_integer<unsigned>(npz[at]) ^ 0x01);
    try {
        io::parse_npz_attention(npz, "crc.npz");
        FAIL() << "corrupt member accepted";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("CRC"), std::string::npos) << e.what();
    }
}

}  // namespace
