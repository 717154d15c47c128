// AttnScope — the PNG encoder: its chunks, their CRCs and the pixels zlib inflates back.
// GPL-3.0-or-later.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attn/io/output/png_write.hpp"
#include "attn/util/error.hpp"

namespace {

std::uint32_t be32(const std::string& s, std::size_t at) {
    return std::uint32_t((unsigned char)s[at]) << 24 |
           std::uint32_t((unsigned char)s[at + 1]) << 16 |
           std::uint32_t((unsigned char)s[at + 2]) << 8 | std::uint32_t((unsigned char)s[at + 3]);
}

struct Png {
    std::vector<std::string> order;           ///< chunk types as they come
    std::map<std::string, std::string> data;  ///< last data of each type (IDAT: all, joined)
};

/// Splits a PNG into chunks, checking the signature and every chunk's CRC.
Png parse(const std::string& png) {
    Png out;
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    std::size_t at = 8;
    while (at + 12 <= png.size()) {
        const std::uint32_t size = be32(png, at);
        const std::string type = png.substr(at + 4, 4);
        const std::string body = png.substr(at + 8, size);
        const uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(png.data() + at + 4), 4 + size);
        EXPECT_EQ(be32(png, at + 8 + size), std::uint32_t(crc)) << type;
        out.order.push_back(type);
        if (type == "IDAT")
            out.data[type] += body;
        else
            out.data[type] = body;
        at += 12 + size;
    }
    EXPECT_EQ(at, png.size());
    return out;
}

std::string inflate_all(const std::string& z, std::size_t expected) {
    std::string raw(expected + 16, '\0');
    uLongf size = uLongf(raw.size());
    EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &size,
                         reinterpret_cast<const Bytef*>(z.data()), uLong(z.size())),
              Z_OK);
    raw.resize(size);
    return raw;
}

TEST(PngWrite, ChunksHeaderResolutionAndPixels) {
    // 3 × 2 pixels in rows 4 apart (one pixel of padding, which must not be written).
    const std::vector<std::uint32_t> pixels = {0xff102030, 0xffa0b0c0, 0xff000000, 0xdeadbeef,
                                               0xffffffff, 0xff7f0080, 0xff010203, 0x12345678};
    const std::string png = attn::io::encode_png_rgb(pixels.data(), 3, 2, 4, 3780);
    const Png p = parse(png);
    ASSERT_EQ(p.order, (std::vector<std::string>{"IHDR", "pHYs", "IDAT", "IEND"}));
    const std::string& ihdr = p.data.at("IHDR");
    EXPECT_EQ(be32(ihdr, 0), 3u);
    EXPECT_EQ(be32(ihdr, 4), 2u);
    EXPECT_EQ(ihdr.substr(8), std::string("\x08\x02\x00\x00\x00", 5));  // 8-bit RGB
    const std::string& phys = p.data.at("pHYs");
    EXPECT_EQ(be32(phys, 0), 3780u);  // 96 dpi
    EXPECT_EQ(be32(phys, 4), 3780u);
    EXPECT_EQ(phys[8], 1);  // per metre
    // Each row: filter byte 0 (none), then R, G, B.
    const std::string expected(
        "\x00\x10\x20\x30\xa0\xb0\xc0\x00\x00\x00"
        "\x00\xff\xff\xff\x7f\x00\x80\x01\x02\x03",
        20);
    EXPECT_EQ(inflate_all(p.data.at("IDAT"), expected.size()), expected);
}

TEST(PngWrite, LargeImageSpansSeveralDataChunks) {
    const int w = 700, h = 500;
    std::vector<std::uint32_t> pixels(std::size_t(w) * h);
    std::mt19937 rng(7);
    for (std::uint32_t& v : pixels)
        v = 0xff000000u | (rng() & 0xffffffu);  // noise: barely compressible
    const Png p = parse(attn::io::encode_png_rgb(pixels.data(), w, h, w, 0));
    EXPECT_EQ(p.order.front(), "IHDR");
    EXPECT_EQ(p.order.back(), "IEND");
    EXPECT_EQ(p.data.count("pHYs"), 0u);  // no resolution asked for
    EXPECT_GT(std::count(p.order.begin(), p.order.end(), "IDAT"), 10);
    const std::string raw = inflate_all(p.data.at("IDAT"), std::size_t(h) * (1 + 3 * w));
    ASSERT_EQ(raw.size(), std::size_t(h) * (1 + 3 * w));
    for (int y : {0, 1, 250, h - 1})
        for (int x : {0, 13, w - 1}) {
            const std::uint32_t v = pixels[std::size_t(y) * w + x];
            const std::size_t at = std::size_t(y) * (1 + 3 * w) + 1 + 3 * std::size_t(x);
            EXPECT_EQ(raw[at - 1 - 3 * std::size_t(x)], '\0');
            EXPECT_EQ((unsigned char)raw[at], (v >> 16) & 0xff);
            EXPECT_EQ((unsigned char)raw[at + 1], (v >> 8) & 0xff);
            EXPECT_EQ((unsigned char)raw[at + 2], v & 0xff);
        }
}

TEST(PngWrite, RefusesEmptyOrInconsistentImages) {
    const std::uint32_t pixel = 0xff000000;
    EXPECT_THROW(attn::io::encode_png_rgb(&pixel, 0, 1, 1, 0), attn::ArgumentError);
    EXPECT_THROW(attn::io::encode_png_rgb(&pixel, 1, -1, 1, 0), attn::ArgumentError);
    EXPECT_THROW(attn::io::encode_png_rgb(&pixel, 2, 1, 1, 0), attn::ArgumentError);  // stride
}

}  // namespace
