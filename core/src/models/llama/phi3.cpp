// AttnScope core — Phi-3's config.json, read into the Llama family's Config: fused projections,
// an optional causal window, and longrope rotary positions. GPL-3.0-or-later.
#include <cmath>

#include "../config_json.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

namespace {

/// rope_scaling's NAME: rotary_dim / 2 positive numbers.
std::vector<double> factors(const nlohmann::json& r, const char* name, int count,
                            const std::string& where) {
    if (!r.contains(name) || !r[name].is_array() || int(r[name].size()) != count)
        throw FormatError(where + ": \"" + name + "\" must be a list of " + std::to_string(count) +
                          " numbers (head_dim / 2)");
    std::vector<double> out;
    for (const nlohmann::json& v : r[name]) {
        if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
            throw FormatError(where + ": \"" + name + "\" must hold positive numbers");
        out.push_back(v.get<double>());
    }
    return out;
}

}  // namespace

void read_phi3(const nlohmann::json& j, const std::string& path, Config& c) {
    c.fused_qkv = c.fused_gate_up = true;
    c.rms_norm_eps = model::config_number(j, "rms_norm_eps", path, 1e-5);
    // Phi3Config's window is None by default; transformers' Phi3 attention applies it when set.
    c.sliding_window = model::config_integer(j, "sliding_window", path, 0);
    if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return;
    const nlohmann::json& r = j["rope_scaling"];
    if (!r.is_object()) throw FormatError(path + ": \"rope_scaling\" must be an object or null");
    const char* key = r.contains("rope_type") ? "rope_type" : "type";
    const std::string type = r.contains(key) && r[key].is_string() ? r[key].get<std::string>() : "";
    if (type == "default") return;
    // "su" is longrope's first name (Phi-3's first 128k folders).
    if (type != "longrope" && type != "su")
        throw FormatError(path + ": rope_scaling type \"" + type +
                          "\" is not supported for phi3 (AttnScope runs none and longrope)");
    const std::string where = path + ": rope_scaling";
    blocks::RopeSpec& rope = c.rope;
    rope.scaling = blocks::RopeScaling::LongRope;
    rope.short_factors = factors(r, "short_factor", c.head_dim / 2, where);
    rope.long_factors = factors(r, "long_factor", c.head_dim / 2, where);
    // Phi3Config's original context (4096 by default) lives beside rope_scaling.
    const int inside = model::config_integer(r, "original_max_position_embeddings", where, 4096);
    const int original = model::config_integer(j, "original_max_position_embeddings", path, inside);
    rope.original_max_positions = original;
    // transformers' _compute_longrope_parameters: the factor is the extended context over the
    // original one, and cos and sin are scaled by √(1 + ln factor / ln original) unless
    // attention_factor is given.
    const double factor = double(c.max_positions) / double(original);
    rope.attention_factor =
        factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(factor) / std::log(double(original)));
    rope.attention_factor =
        model::config_number(r, "attention_factor", where, rope.attention_factor);
}

}  // namespace attn::llama
