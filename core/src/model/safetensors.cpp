// AttnScope core — a memory-mapped .safetensors file (Hugging Face weights). GPL-3.0-or-later.
#include "attn/model/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "attn/error.hpp"

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
    nlohmann::json header;
    // A JSON object keeps the last of two equal keys; the header's names are collected as they
    // are parsed so that a second tensor of the same name is refused, not silently dropped.
    std::set<std::string> names;
    std::string duplicate;
    const auto collect = [&](int depth, nlohmann::json::parse_event_t event,
                             nlohmann::json& parsed) {
        if (depth == 1 && event == nlohmann::json::parse_event_t::key &&
            !names.insert(parsed.get<std::string>()).second && duplicate.empty())
            duplicate = parsed.get<std::string>();
        return true;
    };
    try {
        header = nlohmann::json::parse(reinterpret_cast<const char*>(bytes.data()) + 8,
                                       reinterpret_cast<const char*>(bytes.data()) + 8 + header_len,
                                       collect);
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
