// AttnScope core — Mixtral's config.json, read into the Llama family's Config: Mistral's
// attention and a sparse mixture of experts. GPL-3.0-or-later.
#include "../config_json.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

void read_mixtral(const nlohmann::json& j, const std::string& path, Config& c) {
    c.rms_norm_eps = model::config_number(j, "rms_norm_eps", path, 1e-5);
    c.rope.theta = model::config_number(j, "rope_theta", path, 1e6);  // MixtralConfig's default
    c.experts = model::config_integer(j, "num_local_experts", path, 8);
    c.experts_per_token = model::config_integer(j, "num_experts_per_tok", path, 2);
    if (c.experts_per_token > c.experts)
        throw FormatError(path + ": num_experts_per_tok " + std::to_string(c.experts_per_token) +
                          " exceeds num_local_experts " + std::to_string(c.experts));
    // MixtralConfig's window is None by default.
    c.sliding_window = model::config_integer(j, "sliding_window", path, 0);
}

}  // namespace attn::llama
