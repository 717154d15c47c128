// AttnScope core — T5's config.json. GPL-3.0-or-later.
#include "config.hpp"

#include "../config_json.hpp"

namespace attn::model::t5 {

T5Config read_config(const std::string& dir) {
    const std::string path = dir + "/config.json";
    const nlohmann::json j = read_config_json(path);
    T5Config c;
    Seq2SeqInfo& i = c.info;
    i.family = "t5";
    i.display = "T5";
    i.folder = dir;
    i.d_model = config_integer(j, "d_model", path);
    i.head_dim = config_integer(j, "d_kv", path);
    c.d_ff = config_integer(j, "d_ff", path);
    i.encoder_layers = config_integer(j, "num_layers", path);
    i.decoder_layers = config_integer(j, "num_decoder_layers", path, i.encoder_layers);
    i.heads = config_integer(j, "num_heads", path);
    i.vocab = i.source_vocab = config_integer(j, "vocab_size", path);
    c.buckets = config_integer(j, "relative_attention_num_buckets", path, 32);
    c.max_distance = config_integer(j, "relative_attention_max_distance", path, 128);
    if (c.buckets < 4 || c.max_distance <= c.buckets / 4)
        throw FormatError(path +
                          ": relative_attention_num_buckets must be at least 4 and "
                          "relative_attention_max_distance above a quarter of it");
    c.eps = config_number(j, "layer_norm_epsilon", path, 1e-6);
    c.tied = config_flag(j, "tie_word_embeddings", path, true);
    i.pad = config_token_id(j, "pad_token_id", path, 0);
    i.eos = config_token_id(j, "eos_token_id", path, 1);
    i.decoder_start = config_token_id(j, "decoder_start_token_id", path, i.pad);
    for (const std::int32_t id : {i.pad, i.eos, i.decoder_start})
        if (id >= i.vocab)
            throw FormatError(path + ": token id " + std::to_string(id) + " is past vocab_size " +
                              std::to_string(i.vocab));
    std::string proj = "relu";
    if (j.contains("feed_forward_proj") && !j["feed_forward_proj"].is_null()) {
        if (!j["feed_forward_proj"].is_string())
            throw FormatError(path + ": \"feed_forward_proj\" must be a string");
        proj = j["feed_forward_proj"].get<std::string>();
    }
    std::string act = proj;
    if (proj.rfind("gated-", 0) == 0) {
        c.gated = true;
        act = proj.substr(6);
        // transformers' T5Config: "gated-gelu" means the tanh approximation (gelu_new).
        if (act == "gelu") act = "gelu_new";
    }
    if (act.find('-') != std::string::npos || !blocks::activation_from_name(act, c.act))
        throw FormatError(path + ": feed_forward_proj \"" + proj +
                          "\" is not supported (relu, gated-gelu, or [gated-]ACT)");
    i.scales_scores = false;  // T5 folds the 1/√d_k into its initialisation
    return c;
}

}  // namespace attn::model::t5
