// AttnScope core — a GPT-NeoX config.json. GPL-3.0-or-later.
#include "../config_json.hpp"
#include "attn/models/gpt_neox/model.hpp"
#include "attn/util/error.hpp"

namespace attn::gpt_neox {

Config read_config(const std::string& path) {
    const nlohmann::json j = model::read_config_json(path);
    const std::string type = j.value("model_type", std::string());
    if (type != "gpt_neox")
        throw FormatError(path + ": model_type is \"" + type + "\", not gpt_neox");
    Config c;
    c.layers = model::config_integer(j, "num_hidden_layers", path);
    c.hidden = model::config_integer(j, "hidden_size", path);
    c.intermediate = model::config_integer(j, "intermediate_size", path);
    c.heads = model::config_integer(j, "num_attention_heads", path);
    c.vocab = model::config_integer(j, "vocab_size", path);
    c.max_positions = model::config_integer(j, "max_position_embeddings", path);
    if (c.hidden % c.heads != 0)
        throw FormatError(path + ": num_attention_heads " + std::to_string(c.heads) +
                          " does not divide hidden_size " + std::to_string(c.hidden));
    c.head_dim = c.hidden / c.heads;
    c.layer_norm_eps = model::config_number(j, "layer_norm_eps", path, 1e-5);
    // GPTNeoXConfig's defaults: a quarter of each head rotates, base 10000.
    if (j.contains("rotary_pct") && !j["rotary_pct"].is_null() &&
        (!j["rotary_pct"].is_number() || j["rotary_pct"].get<double>() < 0 ||
         j["rotary_pct"].get<double>() > 1))
        throw FormatError(path + ": \"rotary_pct\" must be a number in [0, 1]");
    const double pct = j.contains("rotary_pct") && !j["rotary_pct"].is_null()
                           ? j["rotary_pct"].get<double>()
                           : 0.25;
    // transformers: rotary_ndims = int(head_size * rotary_pct).
    c.rope.rotary_dim = int(double(c.head_dim) * pct);
    if (c.rope.rotary_dim % 2 != 0)
        throw FormatError(path + ": rotary_pct " + nlohmann::json(pct).dump() + " rotates " +
                          std::to_string(c.rope.rotary_dim) +
                          " dimensions per head, an odd number; rotary positions rotate pairs");
    // Newer configs name the base rope_theta.
    c.rope.theta = model::config_number(j, "rotary_emb_base", path,
                                        model::config_number(j, "rope_theta", path, 10000.0));
    model::read_rope_scaling(j, path, c.rope);
    const std::string act = j.contains("hidden_act") && j["hidden_act"].is_string()
                                ? j["hidden_act"].get<std::string>()
                                : std::string("gelu");
    if (!blocks::activation_from_name(act, c.act))
        throw FormatError(path + ": hidden_act \"" + act +
                          "\" is not supported (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, "
                          "silu, relu)");
    c.parallel = model::config_flag(j, "use_parallel_residual", path, true);
    c.bias = model::config_flag(j, "attention_bias", path, true);
    c.tied = model::config_flag(j, "tie_word_embeddings", path, false);
    return c;
}

}  // namespace attn::gpt_neox
