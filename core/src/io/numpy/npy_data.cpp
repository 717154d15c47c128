// AttnScope core — .npy element decoding (every dtype, order and byte order) to float.
// GPL-3.0-or-later.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "../../files/io_util.hpp"
#include "../../util/half.hpp"
#include "attn/io/numpy/npy.hpp"

namespace attn::io {

namespace {

using detail::fail;

template <typename U>
U load(const std::byte* p, bool big_endian) {
    U v;
    std::memcpy(&v, p, sizeof(U));
    if (big_endian != (std::endian::native == std::endian::big)) {
        U r = 0;
        for (std::size_t i = 0; i < sizeof(U); ++i)
            r = static_cast<U>((r << 8) | ((v >> (8 * i)) & 0xFF));
        v = r;
    }
    return v;
}

/// Per-dimension element strides of the stored layout (C or Fortran order).
std::vector<std::uint64_t> strides_of(const NpyHeader& h) {
    const std::size_t n = h.shape.size();
    std::vector<std::uint64_t> st(n, 1);
    if (h.fortran_order) {
        for (std::size_t k = 1; k < n; ++k)
            st[k] = st[k - 1] * h.shape[k - 1];
    } else {
        for (std::size_t k = n; k-- > 1;)
            st[k - 1] = st[k] * h.shape[k];
    }
    return st;
}

/// The multi-index of C-order flat index `flat`.
std::vector<std::uint64_t> unravel(std::uint64_t flat, std::span<const std::uint64_t> shape) {
    std::vector<std::uint64_t> idx(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) {
        idx[k] = shape[k] ? flat % shape[k] : 0;
        flat = shape[k] ? flat / shape[k] : 0;
    }
    return idx;
}

/// Copies n little-endian float32 values and tells whether all of them are finite. Checks each
/// chunk while it is still in L1 (one read of the data, not two), and vectorises: an exponent of
/// all ones (Inf or NaN) is the largest masked exponent there can be.
bool copy_finite(const std::byte* from, float* to, std::size_t n) {
    constexpr std::uint32_t kExponent = 0x7F800000u;
    constexpr std::size_t kChunk = 2048;
    std::uint32_t top = 0;
    for (std::size_t start = 0; start < n; start += kChunk) {
        const std::size_t len = std::min(kChunk, n - start);
        std::memcpy(to + start, from + start * 4, len * 4);
        for (std::size_t i = start; i < start + len; ++i)
            top = std::max(top, std::bit_cast<std::uint32_t>(to[i]) & kExponent);
    }
    return top != kExponent;
}

[[noreturn]] void non_finite(const std::string& name, float v,
                             std::span<const std::uint64_t> index) {
    fail(name, std::string(std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf")) + " at " +
                   detail::index_string(index));
}

/// One numeric element at p as double (exact for every supported type).
double element_value(const std::byte* p, NpyType type, bool be) {
    switch (type) {
        case NpyType::Float16:
            return attn::detail::half_to_float(load<std::uint16_t>(p, be));
        case NpyType::Float32:
            return std::bit_cast<float>(load<std::uint32_t>(p, be));
        case NpyType::Float64:
            return std::bit_cast<double>(load<std::uint64_t>(p, be));
        case NpyType::Bool:
            return std::to_integer<unsigned>(*p) != 0 ? 1.0 : 0.0;
        case NpyType::Int32:
            return static_cast<std::int32_t>(load<std::uint32_t>(p, be));
        case NpyType::Int64:
            return static_cast<double>(static_cast<std::int64_t>(load<std::uint64_t>(p, be)));
        case NpyType::Unicode:
            break;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

void decode_floats(const std::byte* p, const NpyHeader& h, std::size_t n, float* out) {
    if (h.type == NpyType::Float32 && h.big_endian == (std::endian::native == std::endian::big)) {
        std::memcpy(out, p, n * sizeof(float));
        return;
    }
    for (std::size_t k = 0; k < n; ++k)
        out[k] = detail::narrow(element_value(p + k * h.item_size, h.type, h.big_endian));
}

NpyView::NpyView(std::span<const std::byte> file, std::string name)
    : file_(file), name_(std::move(name)), header_(parse_npy_header(file, name_)) {}

double NpyView::value_at(std::size_t off) const {
    if (header_.type == NpyType::Unicode)
        fail(name_, "holds unicode strings where numbers are expected");
    return element_value(file_.data() + header_.data_offset + off, header_.type,
                         header_.big_endian);
}

std::uint64_t NpyView::matrix_count() const {
    const auto& s = header_.shape;
    if (s.size() < 2) fail(name_, "expected at least 2 dimensions, got " + detail::shape_string(s));
    std::uint64_t n = 1;
    for (std::size_t k = 0; k + 2 < s.size(); ++k)
        n *= s[k];
    return n;
}

std::pair<std::size_t, std::size_t> NpyView::matrix_bytes(std::uint64_t slice) const {
    const auto& s = header_.shape;
    const std::size_t len =
        static_cast<std::size_t>(s[s.size() - 2] * s.back() * header_.item_size);
    return {header_.data_offset + static_cast<std::size_t>(slice) * len, len};
}

void NpyView::copy_matrix(std::uint64_t slice, Matrix& out, bool require_finite) const {
    if (!header_.numeric()) fail(name_, "holds unicode strings where numbers are expected");
    const auto& s = header_.shape;
    const std::uint64_t count = matrix_count();
    if (slice >= count)
        fail(name_, "matrix " + std::to_string(slice) + " requested of " + std::to_string(count));
    const Index rows = static_cast<Index>(s[s.size() - 2]), cols = static_cast<Index>(s.back());
    out.resize(rows, cols);
    const std::vector<std::uint64_t> st = strides_of(header_);
    // Offset of the slice's first element from its leading multi-index.
    std::vector<std::uint64_t> lead = unravel(slice, std::span(s).first(s.size() - 2));
    std::uint64_t base = 0;
    for (std::size_t k = 0; k < lead.size(); ++k)
        base += lead[k] * st[k];
    const std::uint64_t rs = st[s.size() - 2], cs = st.back();
    const std::size_t item = header_.item_size;
    bool finite = true;
    if (header_.type == NpyType::Float32 && !header_.big_endian &&
        std::endian::native == std::endian::little && cs == 1 &&
        rs == static_cast<std::uint64_t>(cols)) {
        // Fast path: little-endian float32 in C order is already our layout; the finiteness
        // check rides along with the copy instead of reading the matrix a second time.
        finite = copy_finite(file_.data() + header_.data_offset + base * 4, out.data(),
                             static_cast<std::size_t>(rows * cols));
    } else {
        for (Index i = 0; i < rows; ++i)
            for (Index j = 0; j < cols; ++j)
                out(i, j) = detail::narrow(
                    value_at(static_cast<std::size_t>((base + static_cast<std::uint64_t>(i) * rs +
                                                       static_cast<std::uint64_t>(j) * cs) *
                                                      item)));
        finite = out.allFinite();
    }
    if (!require_finite || finite) return;
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j)
            if (!std::isfinite(out(i, j))) {
                lead.push_back(static_cast<std::uint64_t>(i));
                lead.push_back(static_cast<std::uint64_t>(j));
                non_finite(name_, out(i, j), lead);
            }
}

std::vector<float> NpyView::to_floats(bool require_finite) const {
    if (!header_.numeric()) fail(name_, "holds unicode strings where numbers are expected");
    const std::uint64_t n = header_.count();
    std::vector<float> out(static_cast<std::size_t>(n));
    const std::vector<std::uint64_t> st = strides_of(header_);
    std::vector<std::uint64_t> idx(header_.shape.size(), 0);
    for (std::uint64_t f = 0; f < n; ++f) {
        std::uint64_t off = 0;
        for (std::size_t k = 0; k < idx.size(); ++k)
            off += idx[k] * st[k];
        const float v = detail::narrow(value_at(static_cast<std::size_t>(off * header_.item_size)));
        if (require_finite && !std::isfinite(v)) non_finite(name_, v, idx);
        out[static_cast<std::size_t>(f)] = v;
        for (std::size_t k = idx.size(); k-- > 0;) {  // next C-order index
            if (++idx[k] < header_.shape[k]) break;
            idx[k] = 0;
        }
    }
    return out;
}

std::vector<std::string> NpyView::to_strings() const {
    if (header_.type != NpyType::Unicode)
        fail(name_, "expected a unicode string array, got " + header_.dtype_name());
    const std::uint64_t n = header_.count();
    const std::size_t chars = header_.item_size / 4;
    const std::vector<std::uint64_t> st = strides_of(header_);
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(n));
    std::vector<std::uint64_t> idx(header_.shape.size(), 0);
    for (std::uint64_t f = 0; f < n; ++f) {
        std::uint64_t off = 0;
        for (std::size_t k = 0; k < idx.size(); ++k)
            off += idx[k] * st[k];
        const std::byte* p = file_.data() + header_.data_offset + off * header_.item_size;
        std::size_t len = chars;
        while (len > 0 && load<std::uint32_t>(p + 4 * (len - 1), header_.big_endian) == 0)
            --len;
        std::string s;
        for (std::size_t c = 0; c < len; ++c) {
            const std::uint32_t cp = load<std::uint32_t>(p + 4 * c, header_.big_endian);
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0)
                fail(name_, "string " + detail::index_string(idx) +
                                " holds an invalid code point " + std::to_string(cp) +
                                " at character " + std::to_string(c));
            detail::append_utf8(s, static_cast<char32_t>(cp));
        }
        out.push_back(std::move(s));
        for (std::size_t k = idx.size(); k-- > 0;) {
            if (++idx[k] < header_.shape[k]) break;
            idx[k] = 0;
        }
    }
    return out;
}

NpyArray parse_npy(std::span<const std::byte> file, std::string_view name) {
    NpyView view(file, std::string(name));
    return {view.header().shape, view.to_floats()};
}

NpyArray read_npy(const std::string& path) {
    MappedFile file(path);
    return parse_npy(file.bytes(), detail::base_name(path));
}

NpyFile::NpyFile(const std::string& path)
    : file_(path), view_(file_.bytes(), detail::base_name(path)) {}

Matrix NpyFile::matrix(std::uint64_t slice) const {
    Matrix m;
    view_.copy_matrix(slice, m);
    return m;
}

}  // namespace attn::io
