// AttnScope core — an Ollama folder's manifests and the GGUF blobs they name.
// GPL-3.0-or-later.
#include "attn/models/ollama.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "../files/io_util.hpp"
#include "attn/models/families.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/gguf.hpp"

namespace attn::model {

namespace ollama_detail {

namespace fs = std::filesystem;

/// The blob a manifest's model layer names, or "" (a digest must be sha256:<64 hex digits>, so
/// no name can lead out of the blobs folder).
std::string model_blob(const nlohmann::json& manifest) {
    if (!manifest.is_object() || !manifest.contains("layers") || !manifest["layers"].is_array())
        return {};
    for (const auto& layer : manifest["layers"]) {
        if (!layer.is_object() ||
            layer.value("mediaType", "") != "application/vnd.ollama.image.model")
            continue;
        const std::string digest = layer.value("digest", "");
        if (digest.size() != 71 || digest.rfind("sha256:", 0) != 0 ||
            digest.find_first_not_of("0123456789abcdef", 7) != std::string::npos)
            return {};
        return "sha256-" + digest.substr(7);
    }
    return {};
}

/// "registry.ollama.ai/library/qwen2.5/0.5b" → "qwen2.5:0.5b", as `ollama list` names it.
std::string display_name(const fs::path& relative) {
    std::vector<std::string> parts;
    for (const auto& p : relative)
        parts.push_back(p.string());
    if (parts.size() != 4) return relative.string();
    std::string name = parts[2] + ":" + parts[3];
    if (parts[1] != "library" || parts[0] != "registry.ollama.ai") name = parts[1] + "/" + name;
    if (parts[0] != "registry.ollama.ai") name = parts[0] + "/" + name;
    return name;
}

/// Every manifest under DIR/manifests (four folders deep, no symbolic link followed), with the
/// blob its model layer names: (manifest's path relative to manifests, blob's file name).
std::vector<std::pair<fs::path, std::string>> manifests(const std::string& dir) {
    std::vector<std::pair<fs::path, std::string>> out;
    std::error_code ec;
    const fs::path root = fs::path(dir) / "manifests";
    if (dir.empty() || !fs::is_directory(root, ec)) return out;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it.depth() > 3) {
            it.disable_recursion_pending();
            continue;
        }
        if (it.depth() != 3 || it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
        try {
            const std::vector<std::byte> bytes = io::detail::read_whole_file(it->path().string());
            const nlohmann::json j = nlohmann::json::parse(
                reinterpret_cast<const char*>(bytes.data()),
                reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
            std::string blob = model_blob(j);
            if (!blob.empty())
                out.emplace_back(fs::relative(it->path(), root, ec), std::move(blob));
        } catch (const Error&) {
            // A manifest that cannot be read names nothing.
        }
    }
    return out;
}

}  // namespace ollama_detail

std::string ollama_models_dir() {
    if (const char* o = std::getenv("OLLAMA_MODELS"); o && *o) return o;
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.ollama/models";
    return {};
}

std::string ollama_name(const std::string& blob) {
    namespace fs = std::filesystem;
    const fs::path path(blob);
    if (path.parent_path().filename() != "blobs" || path.filename().string().rfind("sha256-", 0))
        return {};
    for (const auto& [manifest, named] : ollama_detail::manifests(path.parent_path().parent_path()))
        if (named == path.filename().string()) return ollama_detail::display_name(manifest);
    return {};
}

std::vector<OllamaModel> find_ollama_models(const std::string& dir) {
    namespace od = ollama_detail;
    namespace fs = std::filesystem;
    std::vector<OllamaModel> out;
    for (const auto& [manifest, blob] : od::manifests(dir)) {
        std::error_code ec;
        const fs::path path = fs::path(dir) / "blobs" / blob;
        if (!fs::is_regular_file(fs::symlink_status(path, ec))) continue;
        OllamaModel m;
        m.name = od::display_name(manifest);
        m.blob = path.string();
        m.bytes = double(fs::file_size(path, ec));
        try {
            m.architecture = GgufFile(m.blob).string("general.architecture");
        } catch (const Error&) {
            continue;  // a blob that is no readable GGUF is not offered
        }
        for (const Family& f : families())
            if (f.open_gguf && f.model_type == m.architecture) {
                out.push_back(std::move(m));
                break;
            }
    }
    std::sort(out.begin(), out.end(),
              [](const OllamaModel& a, const OllamaModel& b) { return a.name < b.name; });
    return out;
}

}  // namespace attn::model
