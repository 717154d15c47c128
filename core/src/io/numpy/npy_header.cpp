// AttnScope core — the strict .npy header parser. GPL-3.0-or-later.
//
// The header is a Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False,
// 'shape': (12, 6, 6), }. Only that subset of Python is accepted: string keys, a string
// descr, True/False, a tuple of non-negative integers; exactly those three keys.
#include <cstring>
#include <optional>

#include "../../files/io_util.hpp"
#include "attn/io/numpy/npy.hpp"

namespace attn::io {

namespace {

using detail::fail;

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

/// A cursor over the header text that reports positions as file byte offsets.
class HeaderParser {
  public:
    HeaderParser(std::string_view text, std::size_t base, std::string_view name)
        : s_(text), base_(base), name_(name) {}

    [[noreturn]] void error(std::string_view what) const {
        fail(name_,
             "malformed header at byte " + std::to_string(base_ + pos_) + ": " + std::string(what));
    }
    void skip_ws() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t'))
            ++pos_;
    }
    bool peek(char c) {
        skip_ws();
        return pos_ < s_.size() && s_[pos_] == c;
    }
    void expect(char c, std::string_view what) {
        if (!peek(c)) error("expected " + std::string(what));
        ++pos_;
    }
    std::string string_literal() {
        skip_ws();
        if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
            error("expected a quoted string");
        const char q = s_[pos_++];
        const auto end = s_.find(q, pos_);
        if (end == std::string_view::npos) error("unterminated string");
        std::string out(s_.substr(pos_, end - pos_));
        if (out.find('\\') != std::string::npos) error("escapes in strings are not supported");
        pos_ = end + 1;
        return out;
    }
    bool boolean() {
        skip_ws();
        if (s_.substr(pos_, 4) == "True") {
            pos_ += 4;
            return true;
        }
        if (s_.substr(pos_, 5) == "False") {
            pos_ += 5;
            return false;
        }
        error("expected True or False for 'fortran_order'");
    }
    std::uint64_t integer() {
        skip_ws();
        std::uint64_t v = 0;
        const std::size_t start = pos_;
        while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
            const unsigned d = static_cast<unsigned>(s_[pos_] - '0');
            if (v > (UINT64_MAX - d) / 10) error("dimension too large");
            v = v * 10 + d;
            ++pos_;
        }
        if (pos_ == start) error("expected a non-negative integer in 'shape'");
        if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 long suffix
        return v;
    }
    std::vector<std::uint64_t> shape() {
        expect('(', "'(' opening the shape tuple");
        std::vector<std::uint64_t> dims;
        if (peek(')')) {
            ++pos_;
            return dims;
        }
        for (;;) {
            dims.push_back(integer());
            if (dims.size() > 32) error("more than 32 dimensions");
            if (peek(',')) {
                ++pos_;
                if (peek(')')) break;
                continue;
            }
            if (peek(')')) {
                if (dims.size() == 1) error("a 1-tuple needs a trailing comma");
                break;
            }
            error("expected ',' or ')' in the shape tuple");
        }
        ++pos_;
        return dims;
    }
    std::size_t pos() const { return pos_; }
    std::string_view rest() const { return s_.substr(pos_); }

  private:
    std::string_view s_;
    std::size_t pos_ = 0;
    std::size_t base_;
    std::string_view name_;
};

std::uint16_t le16(const std::byte* p) {
    return static_cast<std::uint16_t>(std::to_integer<unsigned>(p[0]) |
                                      (std::to_integer<unsigned>(p[1]) << 8));
}
std::uint32_t le32(const std::byte* p) {
    return std::to_integer<std::uint32_t>(p[0]) | (std::to_integer<std::uint32_t>(p[1]) << 8) |
           (std::to_integer<std::uint32_t>(p[2]) << 16) |
           (std::to_integer<std::uint32_t>(p[3]) << 24);
}

void parse_descr(const std::string& d, NpyHeader& h, HeaderParser& parser) {
    if (d.size() < 2) parser.error("unsupported dtype '" + d + "'");
    const char order = d[0];
    const std::string kind = d.substr(1);
    if (order != '<' && order != '>' && order != '|' && order != '=')
        parser.error("dtype '" + d + "' lacks a byte-order mark");
    h.big_endian = order == '>';
    if (kind == "f2") {
        h.type = NpyType::Float16, h.item_size = 2;
    } else if (kind == "f4") {
        h.type = NpyType::Float32, h.item_size = 4;
    } else if (kind == "f8") {
        h.type = NpyType::Float64, h.item_size = 8;
    } else if (kind == "b1") {
        h.type = NpyType::Bool, h.item_size = 1;
    } else if (kind == "i4") {
        h.type = NpyType::Int32, h.item_size = 4;
    } else if (kind == "i8") {
        h.type = NpyType::Int64, h.item_size = 8;
    } else if (kind[0] == 'U' && kind.size() > 1 && kind.size() <= 8 &&
               kind.find_first_not_of("0123456789", 1) == std::string::npos) {
        const std::uint64_t chars = std::stoull(kind.substr(1));
        if (chars == 0) parser.error("dtype '" + d + "' has zero-length strings");
        h.type = NpyType::Unicode, h.item_size = static_cast<std::size_t>(chars) * 4;
    } else {
        parser.error("unsupported dtype '" + d +
                     "' (expected float16/32/64, bool, int32/64 or unicode)");
    }
}

}  // namespace

std::uint64_t NpyHeader::count() const {
    std::uint64_t n = 1;
    for (auto d : shape)
        n *= d;  // overflow was excluded by parse_npy_header
    return n;
}

std::string NpyHeader::dtype_name() const {
    switch (type) {
        case NpyType::Float16:
            return "float16";
        case NpyType::Float32:
            return "float32";
        case NpyType::Float64:
            return "float64";
        case NpyType::Bool:
            return "bool";
        case NpyType::Int32:
            return "int32";
        case NpyType::Int64:
            return "int64";
        case NpyType::Unicode:
            return "<U" + std::to_string(item_size / 4);
    }
    return "?";
}

NpyHeader parse_npy_header(std::span<const std::byte> file, std::string_view name) {
    NpyHeader h = parse_npy_header_only(file, name);
    check_npy_size(h, file.size(), name);
    return h;
}

NpyHeader parse_npy_header_only(std::span<const std::byte> file, std::string_view name) {
    if (file.size() < kMagicLen || std::memcmp(file.data(), kMagic, kMagicLen) != 0)
        fail(name, "not a NumPy .npy file (the magic string \\x93NUMPY is missing at byte 0)");
    if (file.size() < 10) fail(name, "truncated: the file ends inside the .npy preamble");
    const unsigned major = std::to_integer<unsigned>(file[6]);
    const unsigned minor = std::to_integer<unsigned>(file[7]);
    if (major < 1 || major > 3 || minor != 0)
        fail(name, "unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " at byte 6 (expected 1.0, 2.0 or 3.0)");
    std::size_t header_len = 0, start = 0;
    if (major == 1) {
        header_len = le16(file.data() + 8);
        start = 10;
    } else {
        if (file.size() < 12) fail(name, "truncated: the file ends inside the .npy preamble");
        header_len = le32(file.data() + 8);
        start = 12;
    }
    if (header_len > file.size() - start)
        fail(name, "truncated: the header claims " + std::to_string(header_len) +
                       " bytes but the file holds only " + std::to_string(file.size() - start) +
                       " after the preamble");
    const std::string_view text = detail::as_chars(file.subspan(start, header_len));
    if (major < 3) {
        for (std::size_t i = 0; i < text.size(); ++i)
            if (static_cast<unsigned char>(text[i]) >= 0x80)
                fail(name, "malformed header at byte " + std::to_string(start + i) +
                               ": non-ASCII character in a version " + std::to_string(major) +
                               ".0 header");
    } else if (auto bad = detail::invalid_utf8_offset(text); bad != std::string_view::npos) {
        fail(name, "malformed header at byte " + std::to_string(start + bad) + ": invalid UTF-8");
    }
    if (text.empty() || text.back() != '\n')
        fail(name, "malformed header: it does not end with a newline at byte " +
                       std::to_string(start + header_len));

    NpyHeader h;
    HeaderParser p(text.substr(0, text.size() - 1), start, name);
    p.expect('{', "'{' opening the header dictionary");
    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<std::vector<std::uint64_t>> shape;
    while (!p.peek('}')) {
        const std::string key = p.string_literal();
        p.expect(':', "':' after key '" + key + "'");
        if (key == "descr") {
            if (descr) p.error("duplicate key 'descr'");
            if (p.peek('[')) p.error("structured (record) dtypes are not supported");
            descr = p.string_literal();
            parse_descr(*descr, h, p);
        } else if (key == "fortran_order") {
            if (fortran) p.error("duplicate key 'fortran_order'");
            fortran = p.boolean();
        } else if (key == "shape") {
            if (shape) p.error("duplicate key 'shape'");
            shape = p.shape();
        } else {
            p.error("unexpected key '" + key + "'");
        }
        if (p.peek(',')) {
            p.expect(',', "','");
        } else if (!p.peek('}')) {
            p.error("expected ',' or '}' in the header dictionary");
        }
    }
    p.expect('}', "'}'");
    p.skip_ws();
    if (!p.rest().empty()) p.error("unexpected text after the header dictionary");
    if (!descr) fail(name, "malformed header: the key 'descr' is missing");
    if (!fortran) fail(name, "malformed header: the key 'fortran_order' is missing");
    if (!shape) fail(name, "malformed header: the key 'shape' is missing");
    h.fortran_order = *fortran;
    h.shape = std::move(*shape);
    h.data_offset = start + header_len;
    return h;
}

void check_npy_size(const NpyHeader& h, std::uint64_t file_size, std::string_view name) {
    if (file_size < h.data_offset)
        fail(name, "truncated: the header ends at byte " + std::to_string(h.data_offset) +
                       " but the file holds only " + std::to_string(file_size) + " bytes");
    std::uint64_t count = 1, bytes = 0;
    for (auto d : h.shape)
        if (__builtin_mul_overflow(count, d, &count))
            fail(name, "header promises " + detail::shape_string(h.shape) + " " + h.dtype_name() +
                           ", more elements than any file can hold");
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(h.item_size), &bytes))
        fail(name, "header promises " + detail::shape_string(h.shape) + " " + h.dtype_name() +
                       ", more bytes than any file can hold");
    const std::uint64_t holds = file_size - h.data_offset;
    if (bytes > holds)
        fail(name, "header promises " + detail::shape_string(h.shape) + " " + h.dtype_name() +
                       " (" + detail::human_bytes(bytes) + ") but the file holds " +
                       detail::human_bytes(holds) +
                       (detail::human_bytes(holds) == detail::human_bytes(bytes)
                            ? " (" + std::to_string(holds) + " bytes, " + std::to_string(bytes) +
                                  " needed)"
                            : std::string()));
    if (bytes < holds)
        fail(name, "header promises " + detail::shape_string(h.shape) + " " + h.dtype_name() +
                       " (" + std::to_string(bytes) + " bytes) but " +
                       std::to_string(holds - bytes) + " more bytes follow the data");
}

}  // namespace attn::io
