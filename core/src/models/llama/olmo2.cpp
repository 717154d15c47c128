// AttnScope core — OLMo-2's config.json, read into the Llama family's Config: norms after the
// attention and the MLP, q_norm / k_norm over the whole projections. GPL-3.0-or-later.
#include "../config_json.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

void read_olmo2(const nlohmann::json& j, const std::string& path, Config& c) {
    c.rms_norm_eps = model::config_number(j, "rms_norm_eps", path, 1e-5);
    c.qkv_bias = c.o_bias = model::config_flag(j, "attention_bias", path, false);
    c.qk_norm_whole = true;
    c.post_norms = true;
    if (j.contains("clip_qkv") && !j["clip_qkv"].is_null())
        throw FormatError(path + ": clip_qkv is not supported");
}

}  // namespace attn::llama
