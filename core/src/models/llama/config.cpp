// AttnScope core — a Llama-family config.json, and its rotary frequencies. GPL-3.0-or-later.
#include "../config_json.hpp"
#include "../decoder_sizes.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

Config read_config(const std::string& path) {
    const nlohmann::json j = model::read_config_json(path);
    Config c;
    c.model_type = j.value("model_type", std::string());
    const std::string& t = c.model_type;
    if (t != "llama" && t != "mistral" && t != "qwen2" && t != "qwen3" && t != "phi3" &&
        t != "olmo2" && t != "mixtral")
        throw FormatError(path + ": model_type is \"" + t +
                          "\", not one of llama, mistral, qwen2, qwen3, phi3, olmo2, mixtral");
    const std::string act = j.value("hidden_act", std::string("silu"));
    if (act != "silu") throw FormatError(path + ": hidden_act \"" + act + "\" is not silu");
    c.layers = model::config_integer(j, "num_hidden_layers", path);
    c.hidden = model::config_integer(j, "hidden_size", path);
    c.intermediate = model::config_integer(j, "intermediate_size", path);
    c.heads = model::config_integer(j, "num_attention_heads", path);
    c.kv_heads = model::config_integer(j, "num_key_value_heads", path, c.heads);
    c.vocab = model::config_integer(j, "vocab_size", path);
    c.max_positions = model::config_integer(j, "max_position_embeddings", path);
    if (c.hidden % c.heads != 0 && !(j.contains("head_dim") && !j["head_dim"].is_null()))
        throw FormatError(path + ": num_attention_heads " + std::to_string(c.heads) +
                          " does not divide hidden_size " + std::to_string(c.hidden));
    // Every family's attention (Qwen2's too) reads head_dim when config.json has it:
    // q_proj gives heads · head_dim, o_proj takes heads · head_dim back.
    c.head_dim = model::config_integer(j, "head_dim", path, c.hidden / c.heads);
    model::check_rotary_heads(c, path, "head_dim", "num_key_value_heads", "num_attention_heads");
    c.rms_norm_eps = model::config_number(j, "rms_norm_eps", path, 1e-6);
    c.rope.rotary_dim = c.head_dim;
    c.rope.theta = model::config_number(j, "rope_theta", path, 10000.0);
    if (t == "phi3") {
        read_phi3(j, path, c);  // its own rope_scaling (longrope) too
    } else {
        model::read_rope_scaling(j, path, c.rope);
    }
    if (t == "olmo2") read_olmo2(j, path, c);
    if (t == "mixtral") read_mixtral(j, path, c);
    if (t == "phi3" || t == "olmo2" || t == "mixtral") {
        // their own biases and windows, read above
    } else if (c.model_type == "qwen2") {
        c.qkv_bias = true;
    } else if (c.model_type != "mistral") {
        c.qkv_bias = c.o_bias = model::config_flag(j, "attention_bias", path, false);
    }
    if (c.model_type == "llama") c.mlp_bias = model::config_flag(j, "mlp_bias", path, false);
    c.qk_norm = c.model_type == "qwen3";
    c.tied = model::config_flag(j, "tie_word_embeddings", path, false);
    if (t == "phi3" || t == "mixtral") {
        // read above
    } else if (c.model_type == "mistral") {
        // MistralConfig's default window is 4096; null turns it off.
        c.sliding_window = j.contains("sliding_window") && j["sliding_window"].is_null()
                               ? 0
                               : model::config_integer(j, "sliding_window", path, 4096);
    } else if (model::config_flag(j, "use_sliding_window", path, false)) {
        throw FormatError(path +
                          ": use_sliding_window (Qwen's per-layer windows) is not "
                          "supported");
    }
    if (j.contains("partial_rotary_factor") && j["partial_rotary_factor"].is_number() &&
        j["partial_rotary_factor"].get<double>() != 1.0)
        throw FormatError(path + ": partial_rotary_factor other than 1 is not supported");
    return c;
}

std::vector<double> rope_frequencies(const Config& c) {
    return blocks::rope_frequencies(c.rope);
}

}  // namespace attn::llama
