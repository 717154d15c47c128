// AttnScope core — .npy writers (float32 C order, unicode strings). GPL-3.0-or-later.
#include <cstring>

#include "../../files/io_util.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/util/error.hpp"

namespace attn::io {

namespace {

/// Preamble + header padded (with spaces, ending in '\n') so the data starts on a 64-byte
/// boundary, as NumPy does.
std::vector<std::byte> npy_preamble(const std::string& descr,
                                    std::span<const std::uint64_t> shape) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        dict += std::to_string(shape[i]);
        if (shape.size() == 1 || i + 1 < shape.size()) dict += ",";
        if (i + 1 < shape.size()) dict += " ";
    }
    dict += "), }";
    const bool v2 = dict.size() + 11 > 65535;
    const std::size_t pre = v2 ? 12 : 10;
    std::size_t total = pre + dict.size() + 1;
    total = (total + 63) / 64 * 64;
    dict.append(total - pre - dict.size() - 1, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY";
    out += static_cast<char>(v2 ? 2 : 1);
    out += '\0';
    const std::size_t len = dict.size();
    out += static_cast<char>(len & 0xFF);
    out += static_cast<char>((len >> 8) & 0xFF);
    if (v2) {
        out += static_cast<char>((len >> 16) & 0xFF);
        out += static_cast<char>((len >> 24) & 0xFF);
    }
    out += dict;
    const auto b = detail::as_bytes(out);
    return {b.begin(), b.end()};
}

void put_le32(std::byte* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
}

/// Throws ShapeError when SHAPE does not hold COUNT elements.
void check_count(std::span<const std::uint64_t> shape, std::size_t count) {
    std::uint64_t n = 1;
    for (auto d : shape)
        n *= d;
    if (n != count)
        throw ShapeError("write_npy: shape holds " + std::to_string(n) + " elements but " +
                         std::to_string(count) + " values were given");
}

}  // namespace

std::vector<std::byte> npy_f4_header(std::span<const std::uint64_t> shape) {
    return npy_preamble("<f4", shape);
}

std::vector<std::byte> npy_i4_bytes(std::span<const std::int32_t> values) {
    const std::uint64_t shape[] = {values.size()};
    return npy_i4_bytes(values, shape);
}

std::vector<std::byte> npy_i4_bytes(std::span<const std::int32_t> values,
                                    std::span<const std::uint64_t> shape) {
    check_count(shape, values.size());
    std::vector<std::byte> out = npy_preamble("<i4", shape);
    const std::size_t off = out.size();
    out.resize(off + values.size() * 4);
    for (std::size_t i = 0; i < values.size(); ++i)
        put_le32(out.data() + off + 4 * i, static_cast<std::uint32_t>(values[i]));
    return out;
}

std::vector<std::byte> npy_bytes(std::span<const float> values,
                                 std::span<const std::uint64_t> shape) {
    std::uint64_t n = 1;
    for (auto d : shape)
        n *= d;
    if (n != values.size())
        throw ShapeError("write_npy: shape holds " + std::to_string(n) + " elements but " +
                         std::to_string(values.size()) + " values were given");
    std::vector<std::byte> out = npy_preamble("<f4", shape);
    const std::size_t off = out.size();
    out.resize(off + values.size() * 4);
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, &values[i], 4);
        put_le32(out.data() + off + 4 * i, bits);
    }
    return out;
}

std::vector<std::byte> npy_raw_bytes(std::string_view descr, std::span<const std::uint64_t> shape,
                                     std::span<const std::byte> data) {
    std::uint64_t n = 1;
    for (auto d : shape)
        n *= d;
    const std::size_t item =
        descr.size() > 2 ? std::size_t(std::stoul(std::string(descr.substr(2)))) : 0;
    if (item == 0 || n * item != data.size())
        throw ShapeError("write_npy: " + std::string(descr) + " of " + std::to_string(n) +
                         " elements is not " + std::to_string(data.size()) + " bytes");
    std::vector<std::byte> out = npy_preamble(std::string(descr), shape);
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

std::vector<std::byte> npy_string_bytes(const std::vector<std::string>& strings) {
    const std::uint64_t shape[] = {strings.size()};
    return npy_string_bytes(strings, shape);
}

std::vector<std::byte> npy_string_bytes(const std::vector<std::string>& strings,
                                        std::span<const std::uint64_t> shape) {
    check_count(shape, strings.size());
    std::vector<std::u32string> wide;
    std::size_t width = 1;
    for (const auto& s : strings) {
        if (detail::invalid_utf8_offset(s) != std::string_view::npos)
            throw ArgumentError("write_npy: a string is not valid UTF-8");
        std::u32string w;
        for (std::size_t i = 0; i < s.size();) {
            const unsigned char c = static_cast<unsigned char>(s[i]);
            const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
            char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
            for (std::size_t k = 1; k < len; ++k)
                cp = (cp << 6) | (s[i + k] & 0x3F);
            w += cp;
            i += len;
        }
        width = std::max(width, w.size());
        wide.push_back(std::move(w));
    }
    std::vector<std::byte> out = npy_preamble("<U" + std::to_string(width), shape);
    const std::size_t off = out.size();
    out.resize(off + strings.size() * width * 4, std::byte{0});
    for (std::size_t i = 0; i < wide.size(); ++i)
        for (std::size_t c = 0; c < wide[i].size(); ++c)
            put_le32(out.data() + off + (i * width + c) * 4,
                     static_cast<std::uint32_t>(wide[i][c]));
    return out;
}

void write_npy(const std::string& path, std::span<const float> values,
               std::span<const std::uint64_t> shape) {
    detail::write_whole_file(path, npy_bytes(values, shape));
}

void write_npy(const std::string& path, const Matrix& m) {
    const std::uint64_t shape[] = {static_cast<std::uint64_t>(m.rows()),
                                   static_cast<std::uint64_t>(m.cols())};
    write_npy(path, std::span<const float>(m.data(), static_cast<std::size_t>(m.size())), shape);
}

}  // namespace attn::io
