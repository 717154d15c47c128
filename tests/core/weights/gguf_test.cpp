// AttnScope — GGUF files: every tensor type decodes as ggml defines it (against
// tests/core/gguf_writer.py's numpy transcription of ggml-quants.c), metadata of every value
// type, and hostile files refused with the file, the field and the sizes. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "../io_test_util.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/gguf.hpp"

namespace {

using attn::model::GgufFile;
using attn::model::GgufType;

/// Bytes of a GGUF file put together by hand, for the hostile cases.
struct GgufBytes {
    std::string b;
    template <class T>
    GgufBytes& put(T v) {
        b.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    GgufBytes& str(const std::string& s) {
        put<std::uint64_t>(s.size());
        b += s;
        return *this;
    }
    /// Header of version 3 with N_TENSORS tensors and N_KV metadata entries.
    static GgufBytes header(std::uint64_t n_tensors, std::uint64_t n_kv) {
        GgufBytes g;
        g.b = "GGUF";
        g.put<std::uint32_t>(3).put<std::uint64_t>(n_tensors).put<std::uint64_t>(n_kv);
        return g;
    }
    /// One tensor-table entry.
    GgufBytes& tensor(const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type,
                      std::uint64_t offset) {
        str(name).put<std::uint32_t>(std::uint32_t(dims.size()));
        for (auto d : dims)
            put(d);
        return put(type).put(offset);
    }
    /// Zero bytes up to the next multiple of 32, then N bytes of data.
    GgufBytes& data(std::size_t n) {
        b.append((32 - b.size() % 32) % 32, '\0');
        b.append(n, '\0');
        return *this;
    }
};

class Gguf : public ::testing::Test {
  protected:
    std::string write(const std::string& name, const std::string& bytes) {
        const std::string path = dir_.file(name);
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    /// The message opening BYTES gives (fails the test when it opens).
    std::string refusal(const std::string& bytes) {
        const std::string path = write("hostile.gguf", bytes);
        try {
            GgufFile f(path);
        } catch (const attn::FormatError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(path), std::string::npos) << what;
            return what;
        }
        ADD_FAILURE() << "opened";
        return {};
    }
    io_test::TempDir dir_;
};

TEST_F(Gguf, EveryTypeDecodesAsGgmlDefinesIt) {
    for (const char* align : {"32", "64"}) {
        const std::string file = dir_.file("all.gguf"), want = dir_.file("all.bin");
        const std::string command = "/usr/bin/python3 " ATTN_GGUF_WRITER " " + file + " " + want +
                                    " 7 --alignment " + align;
        ASSERT_EQ(std::system(command.c_str()), 0) << command;
        const GgufFile g(file);
        ASSERT_EQ(g.tensors().size(), 11u);
        std::ifstream in(want, std::ios::binary);
        for (const auto& t : g.tensors()) {
            EXPECT_EQ(t.offset % std::stoul(align), 0u) << t.name;
            std::vector<float> expected(t.count);
            in.read(reinterpret_cast<char*>(expected.data()), std::streamsize(t.count * 4));
            ASSERT_TRUE(in) << t.name;
            const std::vector<float> got = g.floats(t);
            double largest = 0;
            for (float v : expected)
                largest = std::max(largest, double(std::abs(v)));
            ASSERT_GT(largest, 0.0) << t.name;
            std::size_t off = 0;
            for (std::size_t i = 0; i < got.size(); ++i)
                // ggml's float32 arithmetic, one rounding apart at most (a fused multiply-add).
                if (std::abs(double(got[i]) - double(expected[i])) > 2e-7 * largest) ++off;
            EXPECT_EQ(off, 0u) << t.name << " ("
                               << attn::model::gguf_type_name(std::uint32_t(t.type)) << ")";
        }
    }
}

TEST_F(Gguf, TheBlockLayoutsAreGgmls) {
    EXPECT_EQ(attn::model::gguf_block_bytes(GgufType::Q4_0), 18u);
    EXPECT_EQ(attn::model::gguf_block_bytes(GgufType::Q4_1), 20u);
    EXPECT_EQ(attn::model::gguf_block_bytes(GgufType::Q5_0), 22u);
    EXPECT_EQ(attn::model::gguf_block_bytes(GgufType::Q5_1), 24u);
    EXPECT_EQ(attn::model::gguf_block_bytes(GgufType::Q8_0), 34u);
    EXPECT_EQ(attn::model::gguf_block_bytes(GgufType::Q4_K), 144u);
    EXPECT_EQ(attn::model::gguf_block_bytes(GgufType::Q5_K), 176u);
    EXPECT_EQ(attn::model::gguf_block_bytes(GgufType::Q6_K), 210u);
    // A Q8_0 block by hand: d = 0.5 (f16 0x3800), values −128 … 127 step 8.
    std::vector<std::byte> block(34);
    block[0] = std::byte{0x00};
    block[1] = std::byte{0x38};
    for (int j = 0; j < 32; ++j)
        block[2 + std::size_t(j)] = std::byte(std::uint8_t(std::int8_t(-128 + 8 * j)));
    std::vector<float> y(32);
    attn::model::gguf_dequantize(GgufType::Q8_0, block.data(), y.data(), 32);
    for (int j = 0; j < 32; ++j)
        EXPECT_EQ(y[std::size_t(j)], 0.5f * float(-128 + 8 * j));
    // A Q4_0 block: d = 2, byte j holds value j's nibble 3 and value j + 16's nibble 12.
    std::vector<std::byte> q4(18, std::byte{0xC3});
    q4[0] = std::byte{0x00};
    q4[1] = std::byte{0x40};
    attn::model::gguf_dequantize(GgufType::Q4_0, q4.data(), y.data(), 32);
    EXPECT_EQ(y[0], 2.f * (3 - 8));
    EXPECT_EQ(y[16], 2.f * (12 - 8));
    // A Q5_0 block: d = 2; qh's bit 0 gives value 0 its fifth bit, bit 16 value 16's; byte 0
    // holds nibbles 1 (value 0) and 2 (value 16), the others 0: (q | fifth · 16) − 16.
    std::vector<std::byte> q5(22, std::byte{0});
    q5[1] = std::byte{0x40};
    q5[2] = std::byte{0x01};
    q5[4] = std::byte{0x01};
    q5[6] = std::byte{0x21};
    attn::model::gguf_dequantize(GgufType::Q5_0, q5.data(), y.data(), 32);
    EXPECT_EQ(y[0], 2.f * (17 - 16));
    EXPECT_EQ(y[16], 2.f * (18 - 16));
    EXPECT_EQ(y[1], 2.f * -16);
}

TEST_F(Gguf, MetadataOfEveryValueType) {
    const std::string file = dir_.file("m.gguf"), want = dir_.file("m.bin");
    const std::string command = "/usr/bin/python3 " ATTN_GGUF_WRITER " " + file + " " + want + " 3";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const GgufFile g(file);
    EXPECT_EQ(g.version(), 3u);
    EXPECT_EQ(g.string("general.architecture"), "llama");
    EXPECT_EQ(g.integer("test.u8", 0), 200u);
    EXPECT_EQ(g.integer("test.u16", 0), 60000u);
    EXPECT_EQ(g.integer("test.u64", 0), (std::uint64_t(1) << 40) + 3);
    EXPECT_EQ(g.number("test.i8", 0), -100.0);
    EXPECT_EQ(g.number("test.i16", 0), -30000.0);
    EXPECT_EQ(g.number("test.i32", 0), -7.0);
    EXPECT_EQ(g.number("test.i64", 0), -std::ldexp(1.0, 40));
    EXPECT_EQ(g.number("test.f32", 0), 0.25);
    EXPECT_EQ(g.number("test.f64", 0), 1e-6);
    EXPECT_EQ(g.integer("absent", 9), 9u);
    EXPECT_EQ(std::get<bool>(g.metadata().at("test.bool")), true);
    EXPECT_EQ(std::get<std::vector<std::string>>(g.metadata().at("test.strings")),
              (std::vector<std::string>{"a", "", "ĠHello"}));
    EXPECT_EQ(std::get<std::vector<double>>(g.metadata().at("test.floats")),
              (std::vector<double>{-1.5, 0, 2}));
    EXPECT_EQ(std::get<std::vector<double>>(g.metadata().at("test.ints")),
              (std::vector<double>{-1, 5}));
    EXPECT_THROW((void)g.integer("test.i8", 0), attn::FormatError);
    EXPECT_THROW((void)g.string("test.u8"), attn::FormatError);
}

TEST_F(Gguf, EveryTruncationIsRefusedNamingTheFile) {
    const std::string file = dir_.file("t.gguf"), want = dir_.file("t.bin");
    const std::string command = "/usr/bin/python3 " ATTN_GGUF_WRITER " " + file + " " + want + " 4";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream in(file, std::ios::binary);
    const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t data_start = GgufFile(file).tensors().front().offset;
    // Every cut inside the header and tensor table, then a few inside the data.
    for (std::size_t cut = 0; cut < whole.size(); cut += cut < data_start ? 1 : 997) {
        const std::string what = refusal(whole.substr(0, cut));
        ASSERT_FALSE(what.empty()) << "cut at " << cut;
    }
}

TEST_F(Gguf, HostileHeadersAreRefusedByName) {
    EXPECT_NE(refusal("GGML" + std::string(20, '\0')).find("not a GGUF file"), std::string::npos);
    GgufBytes v9;
    v9.b = "GGUF";
    v9.put<std::uint32_t>(9).put<std::uint64_t>(0).put<std::uint64_t>(0);
    EXPECT_NE(refusal(v9.b).find("GGUF version 9 is not supported"), std::string::npos);
    // Counts that the file cannot hold are refused before anything is reserved.
    EXPECT_NE(refusal(GgufBytes::header(std::uint64_t(1) << 60, 0).b)
                  .find("tensors, more than the file holds"),
              std::string::npos);
    EXPECT_NE(refusal(GgufBytes::header(0, std::uint64_t(1) << 60).b).find("metadata entries"),
              std::string::npos);
    auto key = GgufBytes::header(0, 1);
    key.put<std::uint64_t>(std::uint64_t(1) << 62).data(16);  // room for the entry's count
    EXPECT_NE(refusal(key.b).find("metadata key 0 is 4611686018427387904 bytes long"),
              std::string::npos);
    auto arr = GgufBytes::header(0, 1);
    arr.str("a").put<std::uint32_t>(9).put<std::uint32_t>(8).put<std::uint64_t>(std::uint64_t(1)
                                                                                << 59);
    EXPECT_NE(refusal(arr.b).find("strings, more than the file holds"), std::string::npos);
    auto align = GgufBytes::header(0, 1);
    align.str("general.alignment").put<std::uint32_t>(4).put<std::uint32_t>(48);
    EXPECT_NE(refusal(align.b).find("general.alignment is 48, not a power of two"),
              std::string::npos);
    auto twice = GgufBytes::header(0, 2);
    twice.str("k")
        .put<std::uint32_t>(4)
        .put<std::uint32_t>(1)
        .str("k")
        .put<std::uint32_t>(4)
        .put<std::uint32_t>(2);
    EXPECT_NE(refusal(twice.b).find("metadata \"k\" appears twice"), std::string::npos);
}

TEST_F(Gguf, HostileTensorTablesAreRefusedByName) {
    auto dims = GgufBytes::header(1, 0).tensor("w", {32, 1, 1, 1, 1}, 0, 0);
    EXPECT_NE(refusal(dims.data(0).b).find("tensor \"w\" has 5 dimensions"), std::string::npos);
    auto zero = GgufBytes::header(1, 0).tensor("w", {32, 0}, 0, 0);
    EXPECT_NE(refusal(zero.data(0).b).find("tensor \"w\" has dimension 1 of 0"), std::string::npos);
    auto q2k = GgufBytes::header(1, 0).tensor("blk.0.attn_q.weight", {256}, 10, 0);
    EXPECT_NE(refusal(q2k.data(84).b).find("is of type Q2_K, which AttnScope does not read"),
              std::string::npos);
    auto rows = GgufBytes::header(1, 0).tensor("w", {100, 2}, 12, 0);
    EXPECT_NE(refusal(rows.data(0).b).find("rows of 100 values are not whole Q4_K blocks of 256"),
              std::string::npos);
    auto misaligned = GgufBytes::header(1, 0).tensor("w", {8}, 0, 4);
    EXPECT_NE(refusal(misaligned.data(64).b).find("offset 4 is not a multiple of the alignment 32"),
              std::string::npos);
    auto past = GgufBytes::header(1, 0).tensor("w", {32, 4}, 8, 0);  // 4 Q8_0 blocks: 136 bytes
    const std::string what = refusal(past.data(100).b);
    EXPECT_NE(what.find("tensor \"w\" (Q8_0, 136 bytes at offset 0) runs past the end of the file"),
              std::string::npos)
        << what;
    auto dup = GgufBytes::header(2, 0).tensor("w", {8}, 0, 0).tensor("w", {8}, 0, 32);
    EXPECT_NE(refusal(dup.data(64).b).find("tensor \"w\" appears twice"), std::string::npos);
    // A dimension product that would overflow 64 bits.
    auto huge =
        GgufBytes::header(1, 0).tensor("w", {std::uint64_t(1) << 40, std::uint64_t(1) << 40}, 0, 0);
    EXPECT_NE(refusal(huge.data(0).b).find("tensor \"w\" has dimension 1"), std::string::npos);
}

TEST_F(Gguf, ADirectoryOrAFifoIsNotOpened) {
    try {
        GgufFile g(dir_.path.string());
        FAIL() << "opened a directory";
    } catch (const attn::FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
}

}  // namespace
