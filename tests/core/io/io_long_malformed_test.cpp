// Long sources that cannot be read row by row are refused with a message naming the file, the
// problem and the size (issue 13): truncated or misplaced stored members, members whose header
// promises another size, corrupt deflated data, no disk space for a temporary file, NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "../io_test_util.hpp"
#include "../loaded_sources_util.hpp"
#include "../reference_writers.hpp"
#include "attn/io/load.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace loaded_sources;

const std::vector<std::uint64_t> kShape{2, 3, 40, 40};

/// The message of the error load_attention(path) throws as E ("" and a failure if none).
template <typename E>
std::string refusal(const std::string& path) {
    try {
        attn::io::load_attention(path);
    } catch (const E& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error thrown for " << path;
    return "";
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// Byte offset of the first zip record with signature PK<a><b>.
std::size_t record(const std::vector<std::byte>& zip, char a, char b) {
    for (std::size_t p = 0; p + 4 <= zip.size(); ++p)
        if (zip[p] == std::byte('P') && zip[p + 1] == std::byte('K') &&
            zip[p + 2] == std::byte(a) && zip[p + 3] == std::byte(b))
            return p;
    ADD_FAILURE() << "no zip record PK" << int(a) << int(b);
    return 0;
}

void put32(std::vector<std::byte>& b, std::size_t at, std::uint32_t v) {
    for (int k = 0; k < 4; ++k)
        b[at + std::size_t(k)] = std::byte((v >> (8 * k)) & 0xFF);
}

TEST(LongSourceRefused, TruncatedStoredMember) {
    const Threshold low(100);
    io_test::TempDir dir;
    std::vector<std::byte> member = npy(kShape, "<f4", false);
    member.resize(member.size() / 2);
    const std::string path = dir.file("truncated.npz");
    write_bytes(path, reference::npz_bytes({{"scores", member}}));
    const std::string e = refusal<attn::FormatError>(path);
    EXPECT_TRUE(
        e.starts_with("truncated.npz: scores.npy: header promises 2×3×40×40 float32 "
                      "(38 kB) but the file holds 19 kB"))
        << e;
}

TEST(LongSourceRefused, LocalHeaderOrDataPastTheEnd) {
    const Threshold low(100);
    io_test::TempDir dir;
    const std::vector<std::byte> good =
        reference::npz_bytes({{"scores", npy(kShape, "<f4", false)}});
    // The central directory sends the member's local header past the end of the file.
    std::vector<std::byte> far = good;
    put32(far, record(far, 1, 2) + 42, static_cast<std::uint32_t>(good.size() + 1000));
    const std::string far_path = dir.file("far.npz");
    write_bytes(far_path, far);
    const std::string e = refusal<attn::FormatError>(far_path);
    EXPECT_EQ(e, "far.npz: scores.npy: its local header at byte " +
                     std::to_string(good.size() + 1000) + " lies past the end of the file (" +
                     std::to_string(good.size()) + " bytes)");
    // The local header's extra field claims 60000 bytes: the data would start past the end.
    std::vector<std::byte> past = good;
    const std::size_t local = record(past, 3, 4);
    past[local + 28] = std::byte(0x60);
    past[local + 29] = std::byte(0xEA);
    const std::string past_path = dir.file("past.npz");
    write_bytes(past_path, past);
    const std::string p = refusal<attn::FormatError>(past_path);
    EXPECT_TRUE(p.starts_with("past.npz: scores.npy: its data (38528 bytes at byte ")) << p;
    EXPECT_TRUE(
        has(p, ") runs past the end of the file (" + std::to_string(good.size()) + " bytes)"))
        << p;
}

TEST(LongSourceRefused, DeflatedMemberOfAnotherSizeOrCorrupt) {
    const Threshold low(100);
    io_test::TempDir dir;
    // The header promises 2×3×40×40 but the member holds one row more.
    std::vector<std::byte> longer = npy(kShape, "<f4", false);
    longer.resize(longer.size() + 160);
    const std::string path = dir.file("longer.npz");
    write_bytes(path, reference::npz_bytes({{"scores", longer}}, true));
    const std::string e = refusal<attn::FormatError>(path);
    EXPECT_TRUE(e.starts_with("longer.npz: scores.npy: header promises 2×3×40×40 float32")) << e;
    EXPECT_TRUE(has(e, "160 more bytes follow the data")) << e;
    // Flipped bits inside the compressed data: libzip's inflate or CRC check refuses it.
    std::vector<std::byte> bad =
        reference::npz_bytes({{"scores", npy(kShape, "<f4", false)}}, true);
    const std::size_t data = record(bad, 3, 4) + 30 + 10;  // past the local header and name
    for (std::size_t k = 200; k < 260; ++k)
        bad[data + k] ^= std::byte(0x5A);
    const std::string bad_path = dir.file("corrupt.npz");
    write_bytes(bad_path, bad);
    const std::string c = refusal<attn::FormatError>(bad_path);
    EXPECT_TRUE(c.starts_with("corrupt.npz: scores.npy: ")) << c;
    EXPECT_TRUE(has(c, "corrupt data") || has(c, "entry claims")) << c;
}

TEST(LongSourceRefused, NoDiskSpaceForATemporaryFile) {
    const Threshold low(100);
    io_test::TempDir dir;
    const NoDiskSpace full;
    const std::string npz = dir.file("deflated.npz");
    write_bytes(npz, reference::npz_bytes({{"scores", npy(kShape, "<f4", false)}}, true));
    const std::string e = refusal<attn::ResourceError>(npz);
    // 38,528 bytes: the 38,400 of data and the 128 of the header; ten times that stays free
    // (less than the 10 GB, 10 % of the disk, a large file keeps).
    EXPECT_TRUE(
        e.starts_with("deflated.npz: scores.npy inflated to a temporary file = 39 kB, "
                      "more than the 0 B that can be written to "))
        << e;
    EXPECT_TRUE(has(e, "(0 B free, 385 kB kept free: ten times the 39 kB written; 424 kB short)"))
        << e;
    EXPECT_TRUE(has(e, "TMPDIR")) << e;
    const std::string npy_path = dir.file("fortran.npy");
    write_bytes(npy_path, npy(kShape, "<f8", true));
    const std::string f = refusal<attn::ResourceError>(npy_path);
    EXPECT_TRUE(
        f.starts_with("fortran.npy (Fortran order) transposed to rows in a temporary "
                      "file = 38 kB"))
        << f;
}

TEST(LongSourceRefused, UnsupportedDtypeInAStoredMember) {
    const Threshold low(100);
    io_test::TempDir dir;
    std::vector<std::byte> member = npy(kShape, "<f8", false);
    const std::string descr = "'<f8'";
    for (std::size_t p = 0; p + descr.size() < 128; ++p)
        if (std::string(reinterpret_cast<const char*>(member.data()) + p, descr.size()) == descr)
            member[p + 2] = std::byte('c');  // complex128: not attention
    const std::string path = dir.file("complex.npz");
    write_bytes(path, reference::npz_bytes({{"scores", member}}));
    const std::string e = refusal<attn::FormatError>(path);
    EXPECT_TRUE(e.starts_with("complex.npz: scores.npy: ")) << e;
    EXPECT_TRUE(has(e, "unsupported dtype '<c8'")) << e;
}

TEST(LongSourceRefused, NaNInAFloat64FileNamesItsPlace) {
    const Threshold low(100);
    io_test::TempDir dir;
    std::vector<double> v(count_of(kShape));
    for (std::size_t e = 0; e < v.size(); ++e)
        v[e] = value(e);
    // Layer 1, head 2, row 7, column 11.
    v[((1 * 3 + 2) * 40 + 7) * 40 + 11] = std::nan("");
    const std::string path = dir.file("nan.npy");
    write_bytes(path, npy_of(v, kShape, "<f8", false));
    attn::SceneSpec spec;
    spec.data = std::make_shared<attn::AttentionData>(attn::io::load_attention(path));
    ASSERT_NE(spec.data->components[0].rows, nullptr);
    EXPECT_NO_THROW(attn::compute_scene(spec));  // layer 0 is whole
    spec.layer = 1;
    try {
        attn::compute_scene(spec);
        FAIL() << "NaN accepted";
    } catch (const attn::NonFiniteError& e) {
        EXPECT_TRUE(has(e.what(), "head 2 in \"" + path + "\" are NaN at row 7, column 11"))
            << e.what();
    }
}

TEST(LongSourceRefused, EveryCutOrFlippedHeaderByteIsAnErrorNotACrash) {
    const Threshold low(100);
    io_test::TempDir dir;
    const std::string path = dir.file("cut.npz");
    // NumPy's own stored archive (ZIP64 local header) and a deflated one built here.
    std::vector<std::vector<std::byte>> archives;
    {
        std::ifstream in(io_test::data("npy/long_savez_f4.npz"), std::ios::binary);
        archives.emplace_back();
        for (char c; in.get(c);)
            archives.back().push_back(std::byte(c));
    }
    archives.push_back(reference::npz_bytes({{"scores", npy(kShape, "<f4", false)}}, true));
    int refused = 0, opened = 0;
    const auto attempt = [&](const std::vector<std::byte>& bytes) {
        write_bytes(path, bytes);
        try {
            attn::io::load_attention(path);
            ++opened;
        } catch (const attn::Error& e) {
            EXPECT_TRUE(std::string(e.what()).starts_with("cut.npz")) << e.what();
            ++refused;
        }
    };
    for (const std::vector<std::byte>& good : archives) {
        for (std::size_t cut = 0; cut < good.size(); cut += 13)
            attempt(std::vector<std::byte>(good.begin(), good.begin() + std::ptrdiff_t(cut)));
        // Every byte of the local header and of the directory records at the end, flipped.
        for (std::size_t at = 0; at < good.size(); ++at) {
            if (at >= 200 && at + 200 < good.size()) continue;
            std::vector<std::byte> bad = good;
            bad[at] ^= std::byte(0xFF);
            attempt(bad);
        }
    }
    EXPECT_GT(refused, 500);
    EXPECT_GT(opened, 0);  // flips of fields nobody checks (times, CRC of a stored member)
}

}  // namespace
