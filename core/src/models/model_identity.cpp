// AttnScope core — a model folder's identity for sessions. GPL-3.0-or-later.
#include "attn/models/model_identity.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "../files/io_util.hpp"
#include "../util/fnv1a.hpp"
#include "attn/models/families.hpp"
#include "attn/util/error.hpp"

namespace attn::model {
namespace {

/// safetensors' own bound on its JSON header (the weights loader refuses larger ones).
constexpr std::uint64_t kMaxIdentityHeader = 100u << 20;

std::string_view as_text(const std::vector<std::byte>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

/// PATH's 8-byte header length and its JSON header: the names, dtypes, shapes and offsets of
/// every tensor, never the weights.
std::string safetensors_header(const std::string& path) {
    const int fd = io::detail::open_regular(path, path);
    std::string head(8, '\0');
    std::string out;
    if (::pread(fd, head.data(), 8, 0) == 8) {
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | static_cast<unsigned char>(head[std::size_t(i)]);
        std::string json(std::size_t(std::min(n, kMaxIdentityHeader)), '\0');
        const ssize_t got = ::pread(fd, json.data(), json.size(), 8);
        json.resize(got > 0 ? std::size_t(got) : 0);
        out = head + json;
    }
    ::close(fd);
    return out;
}

/// A GGUF file's metadata and tensor table (and, past them, the start of its weights): its
/// first bytes, at most kGgufIdentityBytes, and its size.
constexpr std::size_t kGgufIdentityBytes = 16u << 20;

std::string gguf_head(const std::string& path) {
    const int fd = io::detail::open_regular(path, path);
    std::string head(kGgufIdentityBytes, '\0');
    const ssize_t got = ::pread(fd, head.data(), head.size(), 0);
    head.resize(got > 0 ? std::size_t(got) : 0);
    std::error_code ec;
    head += "size " + std::to_string(std::filesystem::file_size(path, ec));
    ::close(fd);
    return head;
}

/// The weight files the loader reads: model.safetensors, else the index and its shards (each
/// named once, in name order).
std::vector<std::string> weight_files(const std::string& dir, std::string& index_bytes) {
    std::error_code ec;
    const std::string single = dir + "/model.safetensors";
    if (std::filesystem::exists(single, ec)) return {single};
    const std::string index = dir + "/model.safetensors.index.json";
    if (!std::filesystem::exists(index, ec)) return {};
    const std::vector<std::byte> bytes = io::detail::read_whole_file(index, index);
    index_bytes.assign(as_text(bytes));
    const nlohmann::json j = nlohmann::json::parse(index_bytes, nullptr, false);
    std::set<std::string> shards;
    if (j.is_object() && j.contains("weight_map") && j["weight_map"].is_object())
        for (const auto& item : j["weight_map"].items())
            if (item.value().is_string()) shards.insert(item.value().get<std::string>());
    std::vector<std::string> out;
    for (const std::string& s : shards)
        out.push_back(dir + "/" + s);
    return out;
}

std::string hex64(std::uint64_t h) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::string family_words(const std::string& type) {
    const std::string shown = family_display(type);
    return shown == type ? type : shown + " (" + type + ")";
}

}  // namespace

ModelIdentity model_identity(const ModelFolder& folder) {
    const ModelInfo& info = folder.model->info();
    ModelIdentity id;
    id.family = info.family;
    id.layers = info.layers;
    id.heads = info.heads;
    id.d_model = info.d_model;
    id.vocab = info.vocab;
    if (is_gguf_file(folder.dir)) {
        id.hash = "fnv1a64:" + hex64(detail::fnv1a(gguf_head(folder.dir), detail::kFnv1aBasis));
        return id;
    }
    const std::string config = folder.dir + "/config.json";
    const std::vector<std::byte> bytes = io::detail::read_whole_file(config, config);
    // Each part is prefixed with its name and length, so that bytes cannot move between parts.
    const auto add = [](std::uint64_t h, std::string_view name, std::string_view part) {
        h = detail::fnv1a(name, h);
        h = detail::fnv1a(std::to_string(part.size()) + ":", h);
        return detail::fnv1a(part, h);
    };
    std::uint64_t h = add(detail::kFnv1aBasis, "config.json", as_text(bytes));
    std::string index;
    const std::vector<std::string> files = weight_files(folder.dir, index);
    if (!index.empty()) h = add(h, "model.safetensors.index.json", index);
    for (const std::string& f : files)
        h = add(h, io::detail::base_name(f), safetensors_header(f));
    id.hash = "fnv1a64:" + hex64(h);
    return id;
}

std::string family_display(const std::string& model_type) {
    for (const Family& f : families())
        if (f.model_type == model_type) return f.display;
    return model_type;
}

std::string identity_difference(const ModelIdentity& saved, const ModelIdentity& now) {
    std::string out;
    const auto add = [&](const std::string& what) { out += (out.empty() ? "" : ", ") + what; };
    if (saved.family != now.family)
        add("family " + family_words(now.family) + " instead of " + family_words(saved.family));
    const auto count = [&](const char* what, int was, int is) {
        if (was != is) add(std::to_string(is) + " " + what + " instead of " + std::to_string(was));
    };
    count("layers", saved.layers, now.layers);
    count("heads", saved.heads, now.heads);
    count("d_model", saved.d_model, now.d_model);
    count("vocabulary entries", saved.vocab, now.vocab);
    if (out.empty() && saved.hash != now.hash)
        add("the same family and shapes, but config.json or the weight files' headers changed (" +
            now.hash + " instead of " + saved.hash + ")");
    return out;
}

}  // namespace attn::model
