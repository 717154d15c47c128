// AttnScope core — a Llama-family config.json, and its rotary frequencies. GPL-3.0-or-later.
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "../../files/io_util.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

namespace config_detail {

using nlohmann::json;

int integer(const json& j, const char* name, const std::string& path, int fallback = -1) {
    if (!j.contains(name) || j[name].is_null()) {
        if (fallback >= 0) return fallback;
        throw FormatError(path + ": \"" + name + "\" is missing");
    }
    if (!j[name].is_number_integer() || j[name].get<long long>() <= 0 ||
        j[name].get<long long>() > (1 << 24))
        throw FormatError(path + ": \"" + name + "\" must be a positive integer");
    return j[name].get<int>();
}

double number(const json& j, const char* name, const std::string& path, double fallback) {
    if (!j.contains(name) || j[name].is_null()) return fallback;
    if (!j[name].is_number() || !(j[name].get<double>() > 0) ||
        !std::isfinite(j[name].get<double>()))
        throw FormatError(path + ": \"" + name + "\" must be a positive number");
    return j[name].get<double>();
}

bool flag(const json& j, const char* name, const std::string& path, bool fallback) {
    if (!j.contains(name) || j[name].is_null()) return fallback;
    if (!j[name].is_boolean()) throw FormatError(path + ": \"" + name + "\" must be true or false");
    return j[name].get<bool>();
}

void read_rope_scaling(const json& j, const std::string& path, Config& c) {
    if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return;
    const json& r = j["rope_scaling"];
    if (!r.is_object()) throw FormatError(path + ": \"rope_scaling\" must be an object or null");
    // Transformers renamed "type" to "rope_type"; folders of either age carry one of them.
    const char* key = r.contains("rope_type") ? "rope_type" : "type";
    if (!r.contains(key) || !r[key].is_string())
        throw FormatError(path + ": \"rope_scaling\" has no \"rope_type\"");
    const std::string type = r[key].get<std::string>();
    const std::string where = path + ": rope_scaling";
    if (type == "default") return;
    if (type == "linear") {
        c.rope = RopeScaling::Linear;
        c.rope_factor = number(r, "factor", where, -1);
    } else if (type == "llama3") {
        c.rope = RopeScaling::Llama3;
        c.rope_factor = number(r, "factor", where, -1);
        c.low_freq_factor = number(r, "low_freq_factor", where, -1);
        c.high_freq_factor = number(r, "high_freq_factor", where, -1);
        c.original_max_positions = number(r, "original_max_position_embeddings", where, -1);
        if (!(c.high_freq_factor > c.low_freq_factor))
            throw FormatError(where + ": high_freq_factor must exceed low_freq_factor");
    } else {
        throw FormatError(path + ": rope_scaling type \"" + type +
                          "\" is not supported (AttnScope runs none, linear and llama3)");
    }
    if (c.rope_factor <= 0 || c.low_freq_factor <= 0 || c.original_max_positions <= 0)
        throw FormatError(where +
                          ": factor, low_freq_factor, high_freq_factor and "
                          "original_max_position_embeddings must be positive numbers");
}

}  // namespace config_detail

void check_heads(const Config& c, const std::string& path, const char* head_dim,
                 const char* kv_heads, const char* heads) {
    if (c.head_dim % 2 != 0)
        throw FormatError(path + ": " + head_dim + " " + std::to_string(c.head_dim) +
                          " is odd; rotary positions rotate pairs");
    if (c.heads % c.kv_heads != 0)
        throw FormatError(path + ": " + kv_heads + " " + std::to_string(c.kv_heads) +
                          " does not divide " + heads + " " + std::to_string(c.heads));
}

Config read_config(const std::string& path) {
    namespace cd = config_detail;
    // Opened without blocking and refused unless a regular file (a FIFO would hang the start).
    const std::vector<std::byte> bytes = io::detail::read_whole_file(path, path);
    const nlohmann::json j = nlohmann::json::parse(
        reinterpret_cast<const char*>(bytes.data()),
        reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw FormatError(path + ": not a JSON object");
    Config c;
    c.model_type = j.value("model_type", std::string());
    if (c.model_type != "llama" && c.model_type != "mistral" && c.model_type != "qwen2" &&
        c.model_type != "qwen3")
        throw FormatError(path + ": model_type is \"" + c.model_type +
                          "\", not one of llama, mistral, qwen2, qwen3");
    const std::string act = j.value("hidden_act", std::string("silu"));
    if (act != "silu") throw FormatError(path + ": hidden_act \"" + act + "\" is not silu");
    c.layers = cd::integer(j, "num_hidden_layers", path);
    c.hidden = cd::integer(j, "hidden_size", path);
    c.intermediate = cd::integer(j, "intermediate_size", path);
    c.heads = cd::integer(j, "num_attention_heads", path);
    c.kv_heads = cd::integer(j, "num_key_value_heads", path, c.heads);
    c.vocab = cd::integer(j, "vocab_size", path);
    c.max_positions = cd::integer(j, "max_position_embeddings", path);
    if (c.hidden % c.heads != 0 && !(j.contains("head_dim") && !j["head_dim"].is_null()))
        throw FormatError(path + ": num_attention_heads " + std::to_string(c.heads) +
                          " does not divide hidden_size " + std::to_string(c.hidden));
    // Every family's attention (Qwen2's too) reads head_dim when config.json has it:
    // q_proj gives heads · head_dim, o_proj takes heads · head_dim back.
    c.head_dim = cd::integer(j, "head_dim", path, c.hidden / c.heads);
    check_heads(c, path, "head_dim", "num_key_value_heads", "num_attention_heads");
    c.rms_norm_eps = cd::number(j, "rms_norm_eps", path, 1e-6);
    c.rope_theta = cd::number(j, "rope_theta", path, 10000.0);
    cd::read_rope_scaling(j, path, c);
    if (c.model_type == "qwen2") {
        c.qkv_bias = true;
    } else if (c.model_type != "mistral") {
        c.qkv_bias = c.o_bias = cd::flag(j, "attention_bias", path, false);
    }
    if (c.model_type == "llama") c.mlp_bias = cd::flag(j, "mlp_bias", path, false);
    c.qk_norm = c.model_type == "qwen3";
    c.tied = cd::flag(j, "tie_word_embeddings", path, false);
    if (c.model_type == "mistral") {
        // MistralConfig's default window is 4096; null turns it off.
        c.sliding_window = j.contains("sliding_window") && j["sliding_window"].is_null()
                               ? 0
                               : cd::integer(j, "sliding_window", path, 4096);
    } else if (cd::flag(j, "use_sliding_window", path, false)) {
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
    const int half = c.head_dim / 2;
    std::vector<double> f(std::size_t(half), 0.0);
    for (int i = 0; i < half; ++i)
        f[std::size_t(i)] = 1.0 / std::pow(c.rope_theta, double(2 * i) / double(c.head_dim));
    // A GGUF file's rope_freqs: llama.cpp divides each frequency by its factor (Llama 3.1's
    // rope_scaling, computed by the converter).
    if (c.rope_freq_factors.size() == f.size())
        for (std::size_t i = 0; i < f.size(); ++i)
            f[i] /= c.rope_freq_factors[i];
    if (c.rope == RopeScaling::Linear) {
        for (double& v : f)
            v /= c.rope_factor;
    } else if (c.rope == RopeScaling::Llama3) {
        // transformers' _compute_llama3_parameters: wavelengths longer than the original
        // context / low_freq_factor are slowed by factor, shorter than context /
        // high_freq_factor kept, and the band between blended.
        const double low_wavelen = c.original_max_positions / c.low_freq_factor;
        const double high_wavelen = c.original_max_positions / c.high_freq_factor;
        for (double& v : f) {
            const double wavelen = 2 * std::numbers::pi / v;
            if (wavelen > low_wavelen) {
                v /= c.rope_factor;
            } else if (wavelen >= high_wavelen) {
                const double smooth = (c.original_max_positions / wavelen - c.low_freq_factor) /
                                      (c.high_freq_factor - c.low_freq_factor);
                v = (1 - smooth) * v / c.rope_factor + smooth * v;
            }
        }
    }
    return f;
}

}  // namespace attn::llama
