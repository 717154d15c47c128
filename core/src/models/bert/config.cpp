// AttnScope core — a BERT folder's config.json and tokenizer. GPL-3.0-or-later.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "../../files/io_util.hpp"
#include "../open_tokenizer.hpp"
#include "attn/models/bert/model.hpp"
#include "attn/models/bert/wordpiece.hpp"
#include "attn/util/error.hpp"

namespace attn::bert {

namespace detail {

nlohmann::json read_json(const std::string& path) {
    // Opened without blocking and refused unless a regular file (a FIFO would hang the start).
    const std::vector<std::byte> bytes = io::detail::read_whole_file(path, path);
    nlohmann::json j = nlohmann::json::parse(
        reinterpret_cast<const char*>(bytes.data()),
        reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
    if (j.is_discarded()) throw FormatError(path + ": not JSON");
    if (!j.is_object()) throw FormatError(path + ": not a JSON object");
    return j;
}

int config_int(const nlohmann::json& j, const char* name, const std::string& path) {
    if (!j.contains(name) || !j[name].is_number_integer() || j[name].get<long long>() <= 0 ||
        j[name].get<long long>() > (1 << 24))
        throw FormatError(path + ": \"" + name + "\" must be a positive integer");
    return j[name].get<int>();
}

}  // namespace detail

Config read_config(const std::string& path) {
    const nlohmann::json j = detail::read_json(path);
    const std::string type = j.value("model_type", std::string());
    if (type != "bert") throw FormatError(path + ": model_type is \"" + type + "\", not bert");
    Config c;
    c.layers = detail::config_int(j, "num_hidden_layers", path);
    c.heads = detail::config_int(j, "num_attention_heads", path);
    c.hidden = detail::config_int(j, "hidden_size", path);
    c.intermediate = detail::config_int(j, "intermediate_size", path);
    c.positions = detail::config_int(j, "max_position_embeddings", path);
    c.vocab = detail::config_int(j, "vocab_size", path);
    if (j.contains("type_vocab_size"))
        c.type_vocab = detail::config_int(j, "type_vocab_size", path);
    if (j.contains("layer_norm_eps")) {
        if (!j["layer_norm_eps"].is_number() || !(j["layer_norm_eps"].get<double>() > 0))
            throw FormatError(path + ": layer_norm_eps must be a positive number");
        c.layer_norm_eps = j["layer_norm_eps"].get<double>();
    }
    if (j.contains("hidden_act")) {
        c.hidden_act = j["hidden_act"].is_string() ? j["hidden_act"].get<std::string>() : "";
        if (c.hidden_act != "gelu" && c.hidden_act != "gelu_new" &&
            c.hidden_act != "gelu_pytorch_tanh")
            throw FormatError(path + ": hidden_act \"" + c.hidden_act +
                              "\" is not gelu, gelu_new or gelu_pytorch_tanh");
    }
    const std::string positions = j.value("position_embedding_type", std::string("absolute"));
    if (positions != "absolute")
        throw FormatError(path + ": position_embedding_type \"" + positions +
                          "\" is not supported (only absolute)");
    // BertConfig's is_decoder turns the encoder into a causal decoder (BertLMHeadModel): its
    // attention differs from the bidirectional one run here, so it is refused, not ignored.
    if (j.contains("is_decoder") && !j["is_decoder"].is_null() &&
        (!j["is_decoder"].is_boolean() || j["is_decoder"].get<bool>()))
        throw FormatError(path + ": \"is_decoder\" is " + j["is_decoder"].dump() +
                          ": a BERT decoder attends causally, and AttnScope runs BERT only as the "
                          "bidirectional encoder (is_decoder false)");
    if (c.hidden % c.heads != 0)
        throw FormatError(path + ": num_attention_heads " + std::to_string(c.heads) +
                          " does not divide hidden_size " + std::to_string(c.hidden));
    return c;
}

std::shared_ptr<const model::Tokenizer> open_tokenizer(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    // tokenizer.json (Hugging Face's own format, normalizer included) when the folder has one;
    // else the WordPiece vocabulary every BERT folder ships.
    if (fs::exists(dir + "/tokenizer.json", ec)) return model::open_tokenizer(dir);
    if (!fs::exists(dir + "/vocab.txt", ec))
        throw FormatError(dir + ": no vocab.txt (BERT's WordPiece vocabulary) in the folder");
    bool lower = true;
    if (fs::exists(dir + "/tokenizer_config.json", ec)) {
        const nlohmann::json j = detail::read_json(dir + "/tokenizer_config.json");
        if (j.contains("do_lower_case") && j["do_lower_case"].is_boolean())
            lower = j["do_lower_case"].get<bool>();
    }
    return std::make_shared<const WordPieceTokenizer>(
        WordPieceTokenizer::load(dir + "/vocab.txt", lower));
}

model::ModelFolder open_folder(const std::string& dir) {
    model::ModelFolder f;
    f.dir = dir;
    // The config first: a folder that is not BERT is refused for that, not for its tokenizer.
    (void)read_config(dir + "/config.json");
    f.tokenizer = open_tokenizer(dir);
    const auto model = Model::open(dir, f.tokenizer->token_id("[SEP]"));
    f.model = model;
    if (f.tokenizer->vocab_size() > std::size_t(model->config().vocab))
        throw FormatError(dir + "/vocab.txt: " + std::to_string(f.tokenizer->vocab_size()) +
                          " tokens, more than the model's vocab_size " +
                          std::to_string(model->config().vocab));
    model->set_text_vocab(int(f.tokenizer->vocab_size()));
    return f;
}

}  // namespace attn::bert
