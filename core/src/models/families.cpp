// AttnScope core — the registry of model families. GPL-3.0-or-later.
#include "attn/models/families.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../files/io_util.hpp"
#include "attn/models/bert/model.hpp"
#include "attn/models/gemma/model.hpp"
#include "attn/models/gpt2/model.hpp"
#include "attn/models/gpt_neox/model.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/models/marian/model.hpp"
#include "attn/models/t5/model.hpp"
#include "attn/util/error.hpp"

namespace attn::model {

const std::vector<Family>& families() {
    static const std::vector<Family> all = {
        {"gpt2", "GPT-2", &gpt2::open_folder},
        {"llama", "Llama", &llama::open_folder, &llama::open_gguf},
        {"mistral", "Mistral", &llama::open_folder},
        {"qwen2", "Qwen2", &llama::open_folder, &llama::open_gguf},
        {"qwen3", "Qwen3", &llama::open_folder},
        {"phi3", "Phi-3", &llama::open_folder, &llama::open_gguf},
        {"olmo2", "OLMo-2", &llama::open_folder},
        {"mixtral", "Mixtral", &llama::open_folder},
        {"gpt_neox", "GPT-NeoX", &gpt_neox::open_folder},
        {"bert", "BERT", &bert::open_folder},
        {"gemma2", "Gemma 2", &gemma::open_folder, &gemma::open_gguf},
        {"gemma3_text", "Gemma 3", &gemma::open_folder},
        {"gemma3", "Gemma 3", &gemma::open_folder, &gemma::open_gguf},
    };
    return all;
}

const std::vector<Seq2SeqFamily>& seq2seq_families() {
    static const std::vector<Seq2SeqFamily> all = {
        {"marian", "Marian", &marian::open_folder},
        {"t5", "T5", &t5::open_folder},
    };
    return all;
}

std::string model_type(const std::string& dir) {
    const std::string path = dir + "/config.json";
    // Opened without blocking and refused unless a regular file (a FIFO would hang the start).
    const std::vector<std::byte> bytes = io::detail::read_whole_file(path, path);
    const nlohmann::json j = nlohmann::json::parse(
        reinterpret_cast<const char*>(bytes.data()),
        reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
    if (j.is_discarded()) throw FormatError(path + ": not JSON");
    if (!j.is_object() || !j.contains("model_type") || !j["model_type"].is_string())
        throw FormatError(path + ": no \"model_type\" string");
    return j["model_type"].get<std::string>();
}

bool is_gguf_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

namespace families_detail {

ModelFolder open_gguf(const std::string& path) {
    // Only the header is needed here; the family opens the file again as its own.
    const std::string arch = GgufFile(path).string("general.architecture");
    std::string names;
    for (const Family& f : families()) {
        if (!f.open_gguf) continue;
        if (f.model_type == arch) return f.open_gguf(path);
        names += (names.empty() ? "" : ", ") + f.model_type;
    }
    // Gemma 1 (architecture gemma) is the one GGUF architecture of a family AttnScope knows by
    // name that it does not run.
    const bool later = arch == "gemma";
    throw FormatError(path + ": GGUF architecture \"" + arch + "\" is not supported" +
                      (later ? " yet (its family does not run in AttnScope)" : "") +
                      "; AttnScope runs GGUF files of " + names);
}

}  // namespace families_detail

ModelFolder open_folder(const std::string& dir) {
    if (is_gguf_file(dir)) return families_detail::open_gguf(dir);
    const std::string type = model_type(dir);
    std::string names;
    for (const Family& f : families()) {
        if (f.model_type == type) return f.open(dir);
        names += (names.empty() ? "" : ", ") + f.model_type;
    }
    for (const Seq2SeqFamily& f : seq2seq_families())
        if (f.model_type == type)
            throw FormatError(dir + "/config.json: " + f.display +
                              " is an encoder–decoder (model_type \"" + type +
                              "\"); run it with compute --target or translate");
    throw FormatError(dir + "/config.json: model_type is \"" + type + "\"; AttnScope runs " +
                      names);
}

bool is_seq2seq_folder(const std::string& dir) {
    if (is_gguf_file(dir)) return false;
    const std::string type = model_type(dir);
    for (const Seq2SeqFamily& f : seq2seq_families())
        if (f.model_type == type) return true;
    return false;
}

Seq2SeqFolder open_seq2seq(const std::string& dir) {
    if (is_gguf_file(dir))
        throw FormatError(dir + ": a GGUF file; encoder–decoders open from a Hugging Face folder");
    const std::string type = model_type(dir);
    std::string names;
    for (const Seq2SeqFamily& f : seq2seq_families()) {
        if (f.model_type == type) return f.open(dir);
        names += (names.empty() ? "" : ", ") + f.model_type;
    }
    for (const Family& f : families())
        if (f.model_type == type)
            throw FormatError(dir + "/config.json: " + f.display +
                              (type == "bert" ? " is an encoder-only" : " is a decoder-only") +
                              " model (model_type \"" + type +
                              "\"); --target and translate need an encoder–decoder (" + names +
                              ")");
    throw FormatError(dir + "/config.json: model_type is \"" + type +
                      "\"; the encoder–decoders AttnScope runs are " + names);
}

}  // namespace attn::model
