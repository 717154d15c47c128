// AttnScope core — a model folder's weights: one safetensors file or its shards.
// GPL-3.0-or-later.
#include "attn/weights/weights.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "../files/io_util.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"

namespace attn::model {

namespace weights_detail {

namespace fs = std::filesystem;

/// How to turn a PyTorch checkpoint into safetensors, for the message refusing one.
std::string convert_hint(const std::string& dir) {
    return "AttnScope never loads pickled weights (a pickle can run code); convert them once "
           "with: python3 -c \"from transformers import AutoModelForCausalLM as M; "
           "M.from_pretrained('" +
           dir + "').save_pretrained('" + dir + "', safe_serialization=True)\"";
}

/// Whether PATH is there. A name that is there but cannot be followed (a symbolic link to
/// itself, a loop, no permission) or a link to nothing throws FormatError saying so: it is
/// not a missing file, and the folder's other weights are not looked for in its stead.
bool present(const std::string& path) {
    std::error_code ec;
    if (fs::exists(path, ec)) return true;
    if (ec == std::errc::too_many_symbolic_link_levels)
        throw FormatError(path +
                          ": is a symbolic link that never reaches a file (a loop: too "
                          "many levels of symbolic links)");
    if (ec && ec != std::errc::no_such_file_or_directory)
        throw FormatError(path + ": cannot be read (" + ec.message() + ")");
    if (fs::is_symlink(fs::symlink_status(path, ec))) {
        const fs::path target = fs::read_symlink(path, ec);
        throw FormatError(path + ": is a symbolic link to " + target.string() +
                          ", which does not exist");
    }
    return false;
}

/// True when SHARD (as the index names it) resolves to a regular file inside DIR, or inside the
/// blobs folder of the Hugging Face cache repository DIR is a snapshot of (the cache's
/// snapshots hold symbolic links into ../../blobs).
bool inside(const std::string& dir, const std::string& shard, std::string& why) {
    if (shard.empty() || shard.find('/') != std::string::npos ||
        shard.find('\\') != std::string::npos || shard == "." || shard == "..") {
        why = "is not a file name in the folder";
        return false;
    }
    std::error_code ec;
    const fs::path folder = fs::canonical(dir, ec);
    if (ec) {
        why = "folder cannot be resolved";
        return false;
    }
    const fs::path target = fs::canonical(folder / shard, ec);
    if (ec) {
        why = "does not exist";
        return false;
    }
    if (!fs::is_regular_file(target, ec)) {
        why = "is not a regular file";
        return false;
    }
    const fs::path parent = target.parent_path();
    if (parent == folder) return true;
    const fs::path snapshots = folder.parent_path();
    if (snapshots.filename() == "snapshots" && parent == snapshots.parent_path() / "blobs")
        return true;
    why = "leads outside the folder (to " + target.string() + ")";
    return false;
}

}  // namespace weights_detail

Weights::Weights(const std::string& dir, Keep keep) : dir_(dir), keep_(keep) {
    namespace wd = weights_detail;
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string single = dir + "/model.safetensors";
    const std::string index = dir + "/model.safetensors.index.json";
    std::vector<std::string> names;  // tensors the index names, each checked in its shard
    std::map<std::string, std::string> where;
    if (wd::present(single)) {
        files_.push_back(std::make_unique<SafetensorsFile>(single));
    } else if (wd::present(index)) {
        const std::vector<std::byte> bytes = io::detail::read_whole_file(index, index);
        const nlohmann::json j = nlohmann::json::parse(
            reinterpret_cast<const char*>(bytes.data()),
            reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
        if (j.is_discarded()) throw FormatError(index + ": not JSON");
        if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object() ||
            j["weight_map"].empty())
            throw FormatError(index + ": no \"weight_map\" object naming the shards");
        std::map<std::string, const SafetensorsFile*> shards;
        for (const auto& item : j["weight_map"].items()) {
            if (!item.value().is_string())
                throw FormatError(index + ": the shard of \"" + item.key() +
                                  "\" is not a file name");
            const std::string shard = item.value().get<std::string>();
            if (!shards.count(shard)) {
                std::string why;
                if (!wd::inside(dir, shard, why))
                    throw FormatError(index + ": shard \"" + shard + "\" " + why);
                files_.push_back(std::make_unique<SafetensorsFile>(dir + "/" + shard));
                shards[shard] = files_.back().get();
            }
            names.push_back(item.key());
            where[item.key()] = shard;
        }
        for (const std::string& name : names) {
            const SafetensorsFile* f = shards.at(where.at(name));
            const TensorInfo* t = f->find(name);
            if (!t)
                throw FormatError(index + ": tensor \"" + name + "\" is mapped to " + f->path() +
                                  ", which does not hold it");
            tensors_[name] = {f, t};
        }
    } else if (fs::exists(dir + "/pytorch_model.bin", ec) ||
               fs::exists(dir + "/pytorch_model.bin.index.json", ec)) {
        throw FormatError(dir + ": the weights are only in pytorch_model.bin; " +
                          wd::convert_hint(dir));
    } else {
        throw FormatError(dir + ": no model.safetensors or model.safetensors.index.json");
    }
    if (names.empty())
        for (const auto& [name, t] : files_.front()->tensors())
            tensors_[name] = {files_.front().get(), &t};
    for (const auto& f : files_)
        file_bytes_ += double(f->file_size());
    require_memory(float_bytes(), "the weights of " + dir,
                   "a smaller model, or a larger budget (--memory-budget)");
}

const TensorInfo* Weights::find(const std::string& name) const {
    const auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : it->second.info;
}

std::string Weights::describe(const std::string& name) const {
    const auto it = tensors_.find(name);
    if (gguf_) {  // its own name, as llama.cpp's tools show it, and the one the model asked for
        const std::string own = it == tensors_.end() ? gguf_name_of(name) : it->second.gguf->name;
        return dir_ + ": tensor \"" + (own.empty() ? name : own + "\" (" + name + ")") +
               (own.empty() ? "\"" : "");
    }
    const std::string file =
        it == tensors_.end() ? files_.front()->path() : it->second.file->path();
    return file + ": tensor \"" + name + "\"";
}

FloatTensor Weights::get(const std::string& name, Index rows, Index cols) const {
    const auto it = tensors_.find(name);
    if (it == tensors_.end())
        throw FormatError((gguf_ ? describe(name) : dir_ + ": tensor \"" + name + "\"") +
                          " is missing from the weights");
    const std::string what = describe(name);
    if (it->second.permute_heads)
        return FloatTensor(*it->second.info, rows, cols, what, keep_,
                           gguf_unpermuted_rows(rows, it->second.permute_heads, what));
    FloatTensor t(*it->second.info, rows, cols, what, keep_);
    if (!it->second.file) return t;
    // The widened copy is what the model reads from now on: the file's pages can go.
    if (t.is_float() && it->second.info->dtype != DType::F32)
        it->second.file->release(*it->second.info);
    return t;
}

double Weights::float_bytes() const {
    double bytes = 0;
    for (const auto& [name, e] : tensors_)
        if (e.info->quantised >= 0)
            bytes += double(e.info->bytes.size());
        else if (e.info->dtype != DType::Other) {
            const bool kept = keep_ == Keep::AsStored && e.info->dtype != DType::F32 &&
                              e.info->shape.size() == 2 && e.info->shape[0] > 1;
            bytes += (kept ? 2.0 : 4.0) * double(e.info->count());
        }
    return bytes;
}

std::string Weights::dtype() const {
    std::map<std::string, double> counts;
    for (const auto& [name, e] : tensors_)
        if (e.info->dtype != DType::Other || e.info->quantised >= 0)
            counts[e.info->dtype_name] += double(e.info->count());
    std::string best = "F32";
    double most = -1;
    for (const auto& [type, n] : counts)
        if (n > most) most = n, best = type;
    return best;
}

}  // namespace attn::model
