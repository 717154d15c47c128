// AttnScope core — models already in a user's Hugging Face cache.
// GPL-3.0-or-later.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "../files/io_util.hpp"
#include "attn/models/families.hpp"
#include "attn/models/hf_cache.hpp"
#include "attn/models/ollama.hpp"
#include "attn/util/error.hpp"

namespace attn::model {
namespace {

/// The display name of the family that runs MODEL_TYPE, decoder-only or encoder–decoder (Marian,
/// T5): both open from File ▸ Open Model, so both are offered; "" when none runs it.
std::string runnable_display(const std::string& model_type) {
    for (const Family& f : families())
        if (f.model_type == model_type) return f.display;
    for (const Seq2SeqFamily& f : seq2seq_families())
        if (f.model_type == model_type) return f.display;
    return {};
}

}  // namespace

std::string hub_cache_dir() {
    if (const char* hf = std::getenv("HF_HOME"); hf && *hf) return std::string(hf) + "/hub";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/huggingface/hub";
    return {};
}

std::string model_name(const std::string& dir) {
    namespace fs = std::filesystem;
    if (std::string ollama = ollama_name(dir); !ollama.empty()) return ollama;
    fs::path snapshot(dir);
    if (!snapshot.has_filename()) snapshot = snapshot.parent_path();  // a trailing '/'
    const fs::path snapshots = snapshot.parent_path();
    const std::string repo = snapshots.parent_path().filename().string();
    if (snapshots.filename() != "snapshots" || repo.rfind("models--", 0) != 0)
        return snapshot.filename().string();
    std::string name;  // "--" separates owner and name in the cache's folder names
    for (std::size_t i = 8; i < repo.size(); ++i) {
        if (repo.compare(i, 2, "--") == 0) {
            name += '/';
            ++i;
        } else {
            name += repo[i];
        }
    }
    return name;
}

FolderSummary summarize_folder(const std::string& dir) {
    namespace fs = std::filesystem;
    FolderSummary out;
    std::error_code ec;
    try {
        const std::string type = model_type(dir);
        out.display = runnable_display(type);
        if (!out.display.empty()) out.family = type;
        const fs::path single = fs::path(dir) / "model.safetensors";
        if (fs::is_regular_file(single, ec)) {
            out.bytes = double(fs::file_size(single, ec));
            return out;
        }
        // Sharded: every distinct file the index's weight_map names, each counted once.
        const std::string index = dir + "/model.safetensors.index.json";
        const std::vector<std::byte> bytes = io::detail::read_whole_file(index, index);
        const nlohmann::json j = nlohmann::json::parse(
            reinterpret_cast<const char*>(bytes.data()),
            reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
        if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) return out;
        std::vector<std::string> files;
        for (const auto& [name, file] : j["weight_map"].items())
            if (file.is_string()) files.push_back(file.get<std::string>());
        std::sort(files.begin(), files.end());
        files.erase(std::unique(files.begin(), files.end()), files.end());
        for (const std::string& f : files) {
            const auto size = fs::file_size(fs::path(dir) / f, ec);
            if (!ec) out.bytes += double(size);
        }
    } catch (const Error&) {
        // A folder without a readable config is summarised as nothing: menus skip it.
    }
    return out;
}

std::vector<std::string> find_cached_models(const std::string& hub) {
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    std::error_code ec;
    if (hub.empty() || !fs::is_directory(hub, ec)) return out;
    for (const auto& repo : fs::directory_iterator(hub, ec)) {
        if (repo.path().filename().string().rfind("models--", 0) != 0) continue;
        const fs::path snapshots = repo.path() / "snapshots";
        if (!fs::is_directory(snapshots, ec)) continue;
        for (const auto& snap : fs::directory_iterator(snapshots, ec)) {
            const fs::path dir = snap.path();
            if (!fs::exists(dir / "model.safetensors", ec) &&
                !fs::exists(dir / "model.safetensors.index.json", ec))
                continue;
            // Only the config is read: a family that does not run is not offered at all. Read
            // without blocking: a FIFO or a directory in its place is skipped, not waited on.
            std::vector<std::byte> bytes;
            try {
                bytes = io::detail::read_whole_file((dir / "config.json").string());
            } catch (const Error&) {
                continue;
            }
            const nlohmann::json config = nlohmann::json::parse(
                reinterpret_cast<const char*>(bytes.data()),
                reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
            const auto type = config.is_object() ? config.find("model_type") : config.end();
            if (type == config.end() || !type->is_string()) continue;
            if (!runnable_display(type->get<std::string>()).empty()) out.push_back(dir.string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace attn::model
