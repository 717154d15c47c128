// AttnScope core — a Gemma 2 or Gemma 3 text config.json: its sizes, scale, soft-caps, and which
// layers are sliding-window ones. GPL-3.0-or-later.
#include "../config_json.hpp"
#include "../decoder_sizes.hpp"
#include "attn/models/gemma/model.hpp"
#include "attn/util/error.hpp"

namespace attn::gemma {

namespace {

/// A soft-cap: FALLBACK when absent, 0 (none) when null, else a positive number.
float softcap(const nlohmann::json& j, const char* name, const std::string& path, double fallback) {
    if (!j.contains(name)) return float(fallback);
    if (j[name].is_null()) return 0.f;
    return float(model::config_number(j, name, path, fallback));
}

/// Each layer's kind: from layer_types ("sliding_attention" / "full_attention") when present,
/// else Gemma 2's (even layers windowed) or Gemma 3's (every PATTERN-th layer, from 1, global).
std::vector<bool> window_layers(const nlohmann::json& j, const Config& c, const std::string& path) {
    std::vector<bool> out(std::size_t(c.layers), false);
    if (j.contains("layer_types") && !j["layer_types"].is_null()) {
        const nlohmann::json& t = j["layer_types"];
        if (!t.is_array() || t.size() != std::size_t(c.layers))
            throw FormatError(path + ": \"layer_types\" must list num_hidden_layers " +
                              std::to_string(c.layers) + " layer types");
        for (std::size_t l = 0; l < t.size(); ++l) {
            const std::string kind = t[l].is_string() ? t[l].get<std::string>() : "";
            if (kind != "sliding_attention" && kind != "full_attention")
                throw FormatError(path + ": layer_types[" + std::to_string(l) + "] \"" + kind +
                                  "\" is not sliding_attention or full_attention");
            out[l] = kind == "sliding_attention";
        }
        return out;
    }
    const int pattern =
        c.model_type == "gemma2" ? 2 : model::config_integer(j, "sliding_window_pattern", path, 6);
    for (int l = 0; l < c.layers; ++l)
        out[std::size_t(l)] = (l + 1) % pattern != 0;
    return out;
}

}  // namespace

Config read_config(const std::string& path) {
    nlohmann::json j = model::read_config_json(path);
    // A Gemma 3 folder (Gemma3ForConditionalGeneration) holds its language model's config in
    // text_config; the vision tower is not run.
    if (j.value("model_type", std::string()) == "gemma3") {
        if (!j.contains("text_config") || !j["text_config"].is_object())
            throw FormatError(path + ": a gemma3 config.json without \"text_config\"");
        const bool tied = model::config_flag(j, "tie_word_embeddings", path, true);
        j = j["text_config"];
        if (!j.contains("model_type")) j["model_type"] = "gemma3_text";
        if (!j.contains("tie_word_embeddings")) j["tie_word_embeddings"] = tied;
    }
    Config c;
    c.model_type = j.value("model_type", std::string());
    const bool g2 = c.model_type == "gemma2";
    if (!g2 && c.model_type != "gemma3_text")
        throw FormatError(path + ": model_type is \"" + c.model_type +
                          "\", not one of gemma2, gemma3_text, gemma3");
    c.layers = model::config_integer(j, "num_hidden_layers", path, 26);
    c.hidden = model::config_integer(j, "hidden_size", path, 2304);
    c.intermediate = model::config_integer(j, "intermediate_size", path, 9216);
    c.heads = model::config_integer(j, "num_attention_heads", path, 8);
    c.kv_heads = model::config_integer(j, "num_key_value_heads", path, 4);
    c.head_dim = model::config_integer(j, "head_dim", path, 256);
    c.vocab = model::config_integer(j, "vocab_size", path, g2 ? 256000 : 262208);
    c.max_positions = model::config_integer(j, "max_position_embeddings", path, g2 ? 8192 : 131072);
    model::check_rotary_heads(c, path, "head_dim", "num_key_value_heads", "num_attention_heads");
    c.rms_norm_eps = model::config_number(j, "rms_norm_eps", path, 1e-6);
    c.query_pre_attn_scalar = model::config_number(j, "query_pre_attn_scalar", path, 256);
    c.attn_softcap = softcap(j, "attn_logit_softcapping", path, g2 ? 50.0 : 0.0);
    c.final_softcap = softcap(j, "final_logit_softcapping", path, g2 ? 30.0 : 0.0);
    c.sliding_window = model::config_integer(j, "sliding_window", path, 4096);
    c.window_layers = window_layers(j, c, path);
    // Gemma2Config calls it hidden_activation (hidden_act is its older name).
    const std::string act = j.contains("hidden_activation") && j["hidden_activation"].is_string()
                                ? j["hidden_activation"].get<std::string>()
                                : j.value("hidden_act", std::string("gelu_pytorch_tanh"));
    if (!blocks::activation_from_name(act, c.act))
        throw FormatError(path + ": hidden_activation \"" + act + "\" is not supported");
    c.rope.rotary_dim = c.head_dim;
    c.rope.theta = model::config_number(j, "rope_theta", path, g2 ? 10000.0 : 1000000.0);
    c.local_rope = c.rope;
    // Gemma 3: rope_scaling stretches the global layers only; local ones keep their own base.
    model::read_rope_scaling(j, path, c.rope);
    if (g2)
        c.local_rope = c.rope;
    else
        c.local_rope.theta = model::config_number(j, "rope_local_base_freq", path, 10000.0);
    c.qk_norm = !g2;
    c.attention_bias = model::config_flag(j, "attention_bias", path, false);
    c.tied = model::config_flag(j, "tie_word_embeddings", path, true);
    return c;
}

}  // namespace attn::gemma
