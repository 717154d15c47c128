// AttnScope core — PNG encoding of a figure's pixels. GPL-3.0-or-later.
#include "attn/io/output/png_write.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <vector>

#include "attn/util/error.hpp"

namespace attn::io {
namespace {

void put_u32(std::string& out, std::uint32_t v) {
    const std::array<char, 4> b{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    out.append(b.data(), b.size());
}

/// Appends one chunk: length, type, data, CRC of type and data.
void put_chunk(std::string& out, const char (&type)[5], const unsigned char* data,
               std::size_t size) {
    put_u32(out, std::uint32_t(size));
    out.append(type, 4);
    out.append(reinterpret_cast<const char*>(data), size);
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type), 4);
    if (size) crc = crc32(crc, data, uInt(size));
    put_u32(out, std::uint32_t(crc));
}

}  // namespace

std::string encode_png_rgb(const std::uint32_t* pixels, int width, int height,
                           std::ptrdiff_t stride, std::uint32_t dots_per_metre) {
    if (width <= 0 || height <= 0 || stride < width)
        throw ArgumentError("PNG: an image of " + std::to_string(width) + " × " +
                            std::to_string(height) + " pixels cannot be written");
    std::string out("\x89PNG\r\n\x1a\n", 8);
    std::array<unsigned char, 13> ihdr{};
    const auto be = [](unsigned char* p, std::uint32_t v) {
        p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
        p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
    };
    be(ihdr.data(), std::uint32_t(width));
    be(ihdr.data() + 4, std::uint32_t(height));
    ihdr[8] = 8;  // bits per sample
    ihdr[9] = 2;  // colour type: RGB
    put_chunk(out, "IHDR", ihdr.data(), ihdr.size());
    if (dots_per_metre > 0) {
        std::array<unsigned char, 9> phys{};
        be(phys.data(), dots_per_metre);
        be(phys.data() + 4, dots_per_metre);
        phys[8] = 1;  // unit: metre
        put_chunk(out, "pHYs", phys.data(), phys.size());
    }

    z_stream z{};
    if (deflateInit(&z, 1) != Z_OK) throw Error("PNG: cannot start zlib");
    std::vector<unsigned char> row(1 + 3 * std::size_t(width));  // filter byte 0: none
    // Deflate's output collects in one buffer and becomes a data chunk each time the buffer is
    // full (and at the end), so the file is a few 64 KiB chunks, not one per call.
    std::vector<unsigned char> idat(std::size_t(1) << 16);
    z.next_out = idat.data();
    z.avail_out = uInt(idat.size());
    const auto drain = [&](int flush) {
        for (;;) {
            const int status = deflate(&z, flush);
            if (status == Z_STREAM_ERROR) throw Error("PNG: zlib failed");
            const bool full = z.avail_out == 0;
            if (full || (flush == Z_FINISH && status == Z_STREAM_END)) {
                put_chunk(out, "IDAT", idat.data(), idat.size() - z.avail_out);
                z.next_out = idat.data();
                z.avail_out = uInt(idat.size());
            }
            if (flush == Z_FINISH ? status == Z_STREAM_END : !full) return;
        }
    };
    for (int y = 0; y < height; ++y) {
        const std::uint32_t* src = pixels + std::ptrdiff_t(y) * stride;
        unsigned char* dst = row.data() + 1;
        for (int x = 0; x < width; ++x, dst += 3) {
            const std::uint32_t p = src[x];
            dst[0] = (unsigned char)(p >> 16), dst[1] = (unsigned char)(p >> 8);
            dst[2] = (unsigned char)p;
        }
        z.next_in = row.data();
        z.avail_in = uInt(row.size());
        drain(Z_NO_FLUSH);
    }
    drain(Z_FINISH);
    deflateEnd(&z);
    put_chunk(out, "IEND", nullptr, 0);
    return out;
}

}  // namespace attn::io
