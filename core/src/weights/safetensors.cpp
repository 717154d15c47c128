// AttnScope core — a memory-mapped .safetensors file (Hugging Face weights). GPL-3.0-or-later.
#include "attn/weights/safetensors.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <utility>

#include "../util/parallel.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"

namespace attn::model {

namespace {

// A header larger than this is not a weights file (Hugging Face caps it at 100 MB as well).
constexpr std::uint64_t kMaxHeader = 100u << 20;

/// Bytes per element of a safetensors dtype, 0 when unknown.
std::size_t dtype_size(const std::string& name) {
    if (name == "BOOL" || name == "U8" || name == "I8" || name == "F8_E4M3" || name == "F8_E5M2")
        return 1;
    if (name == "F16" || name == "BF16" || name == "I16" || name == "U16") return 2;
    if (name == "F32" || name == "I32" || name == "U32") return 4;
    if (name == "F64" || name == "I64" || name == "U64") return 8;
    return 0;
}

/// The first top-level key of the JSON object TEXT that appears twice, or "" (a JSON object
/// keeps the last of two equal keys: a second tensor of one name would be dropped unseen).
std::string first_repeated_name(const char* text, std::size_t size) {
    struct Names : nlohmann::json_sax<nlohmann::json> {
        int depth = 0;
        std::unordered_set<std::string> seen;
        std::string repeated;
        bool null() override { return true; }
        bool boolean(bool) override { return true; }
        bool number_integer(number_integer_t) override { return true; }
        bool number_unsigned(number_unsigned_t) override { return true; }
        bool number_float(number_float_t, const string_t&) override { return true; }
        bool string(string_t&) override { return true; }
        bool binary(binary_t&) override { return true; }
        bool start_object(std::size_t) override { return ++depth, true; }
        bool end_object() override { return --depth, true; }
        bool start_array(std::size_t) override { return ++depth, true; }
        bool end_array() override { return --depth, true; }
        bool key(string_t& k) override {
            if (depth == 1 && !seen.insert(k).second && repeated.empty()) repeated = k;
            return true;
        }
        // Malformed JSON: the plain parse after this pass throws with its message.
        bool parse_error(std::size_t, const std::string&,
                         const nlohmann::detail::exception&) override {
            return false;
        }
    } names;
    nlohmann::json::sax_parse(text, text + size, &names);
    return names.repeated;
}

}  // namespace

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::int64_t TensorInfo::count() const {
    std::int64_t n = 1;
    for (const std::int64_t d : shape)
        n *= d;
    return n;
}

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path), file_(path) {
    const auto bytes = file_.bytes();
    const auto fail = [&](const std::string& why) {
        throw FormatError(path + ": " + why + " (file of " + std::to_string(bytes.size()) +
                          " bytes)");
    };
    if (bytes.size() < 8) fail("too short for a safetensors header");
    std::uint64_t header_len = 0;
    for (int i = 7; i >= 0; --i)
        header_len = (header_len << 8) | std::uint8_t(bytes[i]);
    if (header_len > kMaxHeader || header_len > bytes.size() - 8)
        fail("header of " + std::to_string(header_len) + " bytes does not fit");
    const char* const text = reinterpret_cast<const char*>(bytes.data()) + 8;
    nlohmann::json header;
    std::string duplicate;
    try {
        // nlohmann's parse with a callback scans the whole top-level object after each tensor's
        // entry (quadratic in the tensors: minutes for a sharded checkpoint's 100k names), so
        // the names are checked by a SAX pass of their own and the header parsed plainly.
        duplicate = first_repeated_name(text, header_len);
        header = nlohmann::json::parse(text, text + header_len);
    } catch (const nlohmann::json::exception& e) {
        fail(std::string("header is not JSON: ") + e.what());
    }
    if (!header.is_object()) fail("header is not a JSON object");
    if (!duplicate.empty()) fail("tensor \"" + duplicate + "\" appears twice in the header");
    const std::size_t data_begin = 8 + header_len, data_size = bytes.size() - data_begin;
    for (const auto& item : header.items()) {
        // Named copies, not a structured binding: clang 14 cannot capture bindings in lambdas.
        const std::string name = item.key();
        const nlohmann::json& entry = item.value();
        if (name == "__metadata__") continue;
        const auto bad = [&](const std::string& why) { fail("tensor \"" + name + "\": " + why); };
        if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
            !entry.contains("data_offsets"))
            bad("needs dtype, shape and data_offsets");
        TensorInfo t;
        const std::string dtype =
            entry["dtype"].is_string() ? entry["dtype"].get<std::string>() : "";
        t.dtype_name = dtype;
        t.dtype = dtype == "F32"    ? DType::F32
                  : dtype == "F16"  ? DType::F16
                  : dtype == "BF16" ? DType::BF16
                                    : DType::Other;
        if (dtype_size(dtype) == 0) bad("unknown dtype " + entry["dtype"].dump());
        const auto& shape = entry["shape"];
        const auto& offsets = entry["data_offsets"];
        if (!shape.is_array() || !offsets.is_array() || offsets.size() != 2) bad("malformed shape");
        for (const auto& d : shape) {
            if (!d.is_number_unsigned() || d.get<std::uint64_t>() > (1ull << 40))
                bad("shape " + shape.dump() + " is not a list of sizes");
            t.shape.push_back(d.get<std::int64_t>());
            if (t.count() > std::int64_t(bytes.size()))  // also keeps the product from overflowing
                bad("shape " + shape.dump() + " is larger than the file");
        }
        if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
            bad("bad offsets");
        const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
        const std::uint64_t want = std::uint64_t(t.count()) * dtype_size(dtype);
        if (end < begin || end > data_size)
            bad("bytes " + std::to_string(begin) + ".." + std::to_string(end) +
                " lie outside the " + std::to_string(data_size) +
                " bytes of data (truncated file?)");
        if (end - begin != want)
            bad("shape " + shape.dump() + " of " + dtype + " needs " + std::to_string(want) +
                " bytes, the file gives " + std::to_string(end - begin));
        t.bytes = bytes.subspan(data_begin + begin, end - begin);
        t.file = &file_;
        tensors_.emplace(name, std::move(t));
    }
    // Two tensors sharing bytes would read one's weights as the other's.
    std::vector<std::pair<const std::byte*, std::string>> starts;
    for (const auto& [name, t] : tensors_)
        if (!t.bytes.empty()) starts.emplace_back(t.bytes.data(), name);
    std::sort(starts.begin(), starts.end());
    for (std::size_t i = 1; i < starts.size(); ++i) {
        const TensorInfo& before = tensors_.at(starts[i - 1].second);
        if (before.bytes.data() + before.bytes.size() > starts[i].first)
            fail("tensors \"" + starts[i - 1].second + "\" and \"" + starts[i].second +
                 "\" overlap: their data_offsets share bytes");
    }
    check_finite();
}

void SafetensorsFile::check_finite() {
    struct Slice {
        const float* v;
        Index n, at;  ///< values, and the first one's index in its tensor
        const std::string* name;
    };
    constexpr Index kSlice = Index(1) << 18;  // 1 MB
    std::vector<Slice> slices;
    for (auto& [name, t] : tensors_) {
        if (t.dtype != DType::F32 || reinterpret_cast<std::uintptr_t>(t.bytes.data()) % 4) continue;
        const auto* v = reinterpret_cast<const float*>(t.bytes.data());
        const Index n = Index(t.bytes.size() / 4);
        for (Index at = 0; at < n; at += kSlice)
            slices.push_back({v + at, std::min(kSlice, n - at), at, &name});
        t.finite = true;
    }
    // The lowest bad slice, whichever thread finds it: the message names the same value on
    // every run.
    std::atomic<std::size_t> bad{slices.size()};
    detail::parallel_rows(Index(slices.size()), double(kSlice), [&](Index begin, Index count) {
        for (Index s = begin; s < begin + count; ++s)
            if (std::size_t(s) < bad &&
                !simd::all_finite(slices[std::size_t(s)].v, slices[std::size_t(s)].n)) {
                std::size_t seen = bad;
                while (std::size_t(s) < seen && !bad.compare_exchange_weak(seen, std::size_t(s))) {
                }
                return;
            }
    });
    if (bad == slices.size()) return;
    const Slice& s = slices[bad];
    for (Index i = 0; i < s.n; ++i)
        if (!std::isfinite(s.v[i]))
            throw NonFiniteError(path_ + ": tensor \"" + *s.name + "\" has a non-finite value (" +
                                 std::to_string(s.v[i]) + ") at element " +
                                 std::to_string(s.at + i) + ".");
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
    const auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
}

void SafetensorsFile::release(const TensorInfo& tensor) const {
    const std::byte* base = file_.bytes().data();
    if (tensor.bytes.empty() || tensor.bytes.data() < base) return;
    file_.release_touched(std::size_t(tensor.bytes.data() - base), tensor.bytes.size());
}

}  // namespace attn::model
