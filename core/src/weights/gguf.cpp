// AttnScope core — a GGUF file's header, metadata and tensor table, every field checked against
// the file before use (a hostile GGUF is a known attack path). GPL-3.0-or-later.
#include "attn/weights/gguf.hpp"

#include <cstring>
#include <limits>
#include <utility>

#include "attn/util/error.hpp"

namespace attn::model {
namespace {

constexpr std::uint32_t kMaxDims = 4;               // ggml's GGML_MAX_DIMS
constexpr std::uint64_t kMaxNameBytes = 64 * 1024;  // far past any real key or tensor name
constexpr std::uint64_t kMaxAlignment = 1u << 20;

/// Reads the file front to back; every read is checked against the bytes left.
class Reader {
  public:
    Reader(std::span<const std::byte> bytes, const std::string& path) : b_(bytes), path_(path) {}

    std::uint64_t pos() const { return pos_; }
    std::uint64_t left() const { return b_.size() - pos_; }

    [[noreturn]] void fail(const std::string& what) const {
        throw FormatError(path_ + ": " + what + " (at byte " + std::to_string(pos_) + " of " +
                          std::to_string(b_.size()) + ").");
    }

    void need(std::uint64_t n, const std::string& what) const {
        if (n > left())
            fail(what + " needs " + std::to_string(n) + " bytes, the file has " +
                 std::to_string(left()) + " left");
    }

    template <class T>
    T get(const std::string& what) {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, b_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }

    std::string text(const std::string& what, std::uint64_t limit) {
        const auto n = get<std::uint64_t>(what + "'s length");
        if (n > limit)
            fail(what + " is " + std::to_string(n) + " bytes long, more than " +
                 std::to_string(limit));
        need(n, what);
        std::string s(reinterpret_cast<const char*>(b_.data() + pos_), std::size_t(n));
        pos_ += n;
        return s;
    }

    void skip_to(std::uint64_t at) { pos_ = at; }

  private:
    std::span<const std::byte> b_;
    const std::string& path_;
    std::uint64_t pos_ = 0;
};

enum ValueType : std::uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    BOOL = 7,
    STRING = 8,
    ARRAY = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};

/// Bytes of one scalar of TYPE (0 for strings and arrays, which carry their own lengths).
std::uint64_t scalar_bytes(std::uint32_t type) {
    switch (type) {
        case U8:
        case I8:
        case BOOL:
            return 1;
        case U16:
        case I16:
            return 2;
        case U32:
        case I32:
        case F32:
            return 4;
        case U64:
        case I64:
        case F64:
            return 8;
        default:
            return 0;
    }
}

/// A scalar of TYPE as a metadata value.
GgufValue scalar(Reader& r, std::uint32_t type, const std::string& what) {
    switch (type) {
        case U8:
            return std::uint64_t(r.get<std::uint8_t>(what));
        case I8:
            return std::int64_t(r.get<std::int8_t>(what));
        case U16:
            return std::uint64_t(r.get<std::uint16_t>(what));
        case I16:
            return std::int64_t(r.get<std::int16_t>(what));
        case U32:
            return std::uint64_t(r.get<std::uint32_t>(what));
        case I32:
            return std::int64_t(r.get<std::int32_t>(what));
        case U64:
            return r.get<std::uint64_t>(what);
        case I64:
            return r.get<std::int64_t>(what);
        case F32:
            return double(r.get<float>(what));
        case F64:
            return r.get<double>(what);
        case BOOL: {
            const auto v = r.get<std::uint8_t>(what);
            if (v > 1) r.fail(what + " is a boolean of value " + std::to_string(v));
            return v == 1;
        }
        default:
            r.fail(what + " has the unknown value type " + std::to_string(type));
    }
}

double as_double(const GgufValue& v) {
    if (auto* i = std::get_if<std::int64_t>(&v)) return double(*i);
    if (auto* u = std::get_if<std::uint64_t>(&v)) return double(*u);
    if (auto* d = std::get_if<double>(&v)) return *d;
    return double(std::get<bool>(v));
}

GgufValue value(Reader& r, std::uint32_t type, const std::string& what) {
    if (type == STRING) return r.text(what, r.left());
    if (type != ARRAY) return scalar(r, type, what);
    const auto inner = r.get<std::uint32_t>(what + "'s element type");
    const auto count = r.get<std::uint64_t>(what + "'s element count");
    if (inner == STRING) {
        // Each string has at least its 8-byte length: a count the file cannot hold is refused
        // before anything is reserved.
        if (count > r.left() / 8)
            r.fail(what + " has " + std::to_string(count) + " strings, more than the file holds");
        std::vector<std::string> out;
        out.reserve(std::size_t(count));
        for (std::uint64_t i = 0; i < count; ++i)
            out.push_back(r.text(what + "[" + std::to_string(i) + "]", r.left()));
        return out;
    }
    const std::uint64_t each = scalar_bytes(inner);
    if (each == 0)
        r.fail(what + " is an array of the unsupported element type " + std::to_string(inner));
    if (count > r.left() / each)
        r.fail(what + " has " + std::to_string(count) + " elements of " + std::to_string(each) +
               " bytes, more than the file holds");
    std::vector<double> out;
    out.reserve(std::size_t(count));
    for (std::uint64_t i = 0; i < count; ++i)
        out.push_back(as_double(scalar(r, inner, what)));
    return out;
}

bool readable(std::uint32_t type) {
    switch (type) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 6:
        case 7:
        case 8:
        case 12:
        case 13:
        case 14:
        case 30:
            return true;
        default:
            return false;
    }
}

}  // namespace

GgufFile::GgufFile(const std::string& path) : path_(path), file_(path) {
    Reader r(file_.bytes(), path_);
    const auto magic = r.get<std::uint32_t>("the GGUF magic");
    if (magic != 0x46554747u) r.fail("not a GGUF file: its first 4 bytes are not \"GGUF\"");
    version_ = r.get<std::uint32_t>("the version");
    if (version_ < 2 || version_ > 3)
        r.fail("GGUF version " + std::to_string(version_) + " is not supported (2 and 3 are)");
    const auto n_tensors = r.get<std::uint64_t>("the tensor count");
    const auto n_kv = r.get<std::uint64_t>("the metadata count");
    // A key-value pair is at least 12 bytes (key length, type), a tensor entry at least 24.
    if (n_kv > r.left() / 12)
        r.fail("the header says " + std::to_string(n_kv) +
               " metadata entries, more than the file holds");
    if (n_tensors > r.left() / 24)
        r.fail("the header says " + std::to_string(n_tensors) +
               " tensors, more than the file holds");
    for (std::uint64_t i = 0; i < n_kv; ++i) {
        std::string key = r.text("metadata key " + std::to_string(i), kMaxNameBytes);
        const auto type = r.get<std::uint32_t>("the type of metadata \"" + key + "\"");
        GgufValue v = value(r, type, "metadata \"" + key + "\"");
        if (!metadata_.emplace(key, std::move(v)).second)
            r.fail("metadata \"" + key + "\" appears twice");
    }
    const std::uint64_t alignment = integer("general.alignment", 32);
    if (alignment == 0 || alignment > kMaxAlignment || (alignment & (alignment - 1)) != 0)
        r.fail("general.alignment is " + std::to_string(alignment) + ", not a power of two up to " +
               std::to_string(kMaxAlignment));
    tensors_.reserve(std::size_t(n_tensors));
    for (std::uint64_t i = 0; i < n_tensors; ++i) {
        GgufTensor t;
        t.name = r.text("tensor name " + std::to_string(i), kMaxNameBytes);
        const std::string what = "tensor \"" + t.name + "\"";
        const auto n_dims = r.get<std::uint32_t>(what + "'s dimension count");
        if (n_dims == 0 || n_dims > kMaxDims)
            r.fail(what + " has " + std::to_string(n_dims) + " dimensions (1 to 4 are allowed)");
        t.count = 1;
        for (std::uint32_t d = 0; d < n_dims; ++d) {
            const auto dim = r.get<std::uint64_t>(what + "'s dimension " + std::to_string(d));
            if (dim == 0 || dim > (std::uint64_t(1) << 40) ||
                t.count > (std::uint64_t(1) << 48) / dim)
                r.fail(what + " has dimension " + std::to_string(d) + " of " + std::to_string(dim));
            t.dims.push_back(dim);
            t.count *= dim;
        }
        const auto type = r.get<std::uint32_t>(what + "'s type");
        if (!readable(type))
            r.fail(what + " is of type " + gguf_type_name(type) +
                   ", which AttnScope does not read (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, "
                   "Q4_K, Q5_K and Q6_K)");
        t.type = GgufType(type);
        const std::uint64_t per = gguf_block_values(t.type);
        if (t.dims[0] % per != 0)
            r.fail(what + "'s rows of " + std::to_string(t.dims[0]) + " values are not whole " +
                   gguf_type_name(type) + " blocks of " + std::to_string(per));
        t.bytes = t.count / per * gguf_block_bytes(t.type);
        t.offset = r.get<std::uint64_t>(what + "'s offset");
        if (t.offset % alignment != 0)
            r.fail(what + "'s offset " + std::to_string(t.offset) +
                   " is not a multiple of the alignment " + std::to_string(alignment));
        if (!by_name_.emplace(t.name, tensors_.size()).second) r.fail(what + " appears twice");
        tensors_.push_back(std::move(t));
    }
    const std::uint64_t data_start = (r.pos() + alignment - 1) / alignment * alignment;
    const std::uint64_t size = file_.size();
    if (data_start > size && !tensors_.empty()) r.fail("the tensor data would start past the end");
    for (GgufTensor& t : tensors_) {
        if (t.offset > size - data_start || t.bytes > size - data_start - t.offset)
            throw FormatError(
                path_ + ": tensor \"" + t.name + "\" (" + gguf_type_name(std::uint32_t(t.type)) +
                ", " + std::to_string(t.bytes) + " bytes at offset " + std::to_string(t.offset) +
                ") runs past the end of the file of " + std::to_string(size) + " bytes.");
        t.offset += data_start;
    }
}

const GgufTensor* GgufFile::find(const std::string& name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &tensors_[it->second];
}

std::span<const std::byte> GgufFile::data(const GgufTensor& t) const {
    return file_.bytes().subspan(std::size_t(t.offset), std::size_t(t.bytes));
}

std::vector<float> GgufFile::floats(const GgufTensor& t) const {
    std::vector<float> out(std::size_t(t.count));
    gguf_dequantize(t.type, data(t).data(), out.data(), out.size());
    return out;
}

const std::string& GgufFile::string(const std::string& key) const {
    const auto it = metadata_.find(key);
    const std::string* s = it == metadata_.end() ? nullptr : std::get_if<std::string>(&it->second);
    if (!s)
        throw FormatError(path_ + ": metadata \"" + key + "\" is " +
                          (it == metadata_.end() ? "missing" : "not a string") + ".");
    return *s;
}

std::uint64_t GgufFile::integer(const std::string& key, std::uint64_t fallback) const {
    const auto it = metadata_.find(key);
    if (it == metadata_.end()) return fallback;
    if (auto* u = std::get_if<std::uint64_t>(&it->second)) return *u;
    if (auto* i = std::get_if<std::int64_t>(&it->second); i && *i >= 0) return std::uint64_t(*i);
    throw FormatError(path_ + ": metadata \"" + key + "\" is not a non-negative integer.");
}

double GgufFile::number(const std::string& key, double fallback) const {
    const auto it = metadata_.find(key);
    if (it == metadata_.end()) return fallback;
    const GgufValue& v = it->second;
    if (std::holds_alternative<std::string>(v) ||
        std::holds_alternative<std::vector<std::string>>(v) ||
        std::holds_alternative<std::vector<double>>(v) || std::holds_alternative<bool>(v))
        throw FormatError(path_ + ": metadata \"" + key + "\" is not a number.");
    return as_double(v);
}

}  // namespace attn::model
