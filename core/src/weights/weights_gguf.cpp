// AttnScope core — a GGUF file's tensors seen as a Hugging Face folder's weights: llama.cpp's
// tensor names mapped back, llama's permuted Q and K rows put back in order. GPL-3.0-or-later.
#include <array>
#include <utility>

#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"
#include "attn/weights/weights.hpp"

namespace attn::model {

namespace weights_gguf_detail {

// gguf-py's tensor names (MODEL_TENSOR) of the decoder families and transformers' names.
// Gemma 2's post-attention norm keeps llama.cpp's name (ffn_norm is its pre-feed-forward norm).
// Phi-3's fused attn_qkv is its qkv_proj; its ffn_up holds gate_up_proj (GgufLayout), named back
// by the second ffn_up entry.
constexpr std::array<std::pair<const char*, const char*>, 15> kGgufBlockNames = {{
    {"attn_norm", "input_layernorm"},
    {"ffn_norm", "post_attention_layernorm"},
    {"attn_q", "self_attn.q_proj"},
    {"attn_k", "self_attn.k_proj"},
    {"attn_v", "self_attn.v_proj"},
    {"attn_output", "self_attn.o_proj"},
    {"attn_q_norm", "self_attn.q_norm"},
    {"attn_k_norm", "self_attn.k_norm"},
    {"ffn_gate", "mlp.gate_proj"},
    {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"},
    {"post_attention_norm", "post_attention_norm"},
    {"post_ffw_norm", "post_feedforward_layernorm"},
    {"attn_qkv", "self_attn.qkv_proj"},
    {"ffn_up", "mlp.gate_up_proj"},
}};

}  // namespace weights_gguf_detail

std::string gguf_hf_name(const std::string& name) {
    const auto dot = name.rfind('.');
    if (dot == std::string::npos) return {};
    const std::string stem = name.substr(0, dot), suffix = name.substr(dot);
    if (suffix != ".weight" && suffix != ".bias") return {};
    if (stem == "token_embd") return "model.embed_tokens" + suffix;
    if (stem == "output_norm") return "model.norm" + suffix;
    if (stem == "output") return "lm_head" + suffix;
    if (stem.rfind("blk.", 0) != 0) return {};
    const auto at = stem.find('.', 4);
    if (at == std::string::npos || at == 4 || at - 4 > 6) return {};
    const std::string layer = stem.substr(4, at - 4);
    if (layer.find_first_not_of("0123456789") != std::string::npos) return {};
    const std::string part = stem.substr(at + 1);
    for (const auto& [gguf, hf] : weights_gguf_detail::kGgufBlockNames)
        if (part == gguf) return "model.layers." + layer + "." + hf + suffix;
    return {};
}

std::string gguf_name_of(const std::string& hf) {
    const auto dot = hf.rfind('.');
    if (dot == std::string::npos) return {};
    const std::string stem = hf.substr(0, dot), suffix = hf.substr(dot);
    if (stem == "model.embed_tokens") return "token_embd" + suffix;
    if (stem == "model.norm") return "output_norm" + suffix;
    if (stem == "lm_head") return "output" + suffix;
    const std::string prefix = "model.layers.";
    if (stem.rfind(prefix, 0) != 0) return {};
    const auto at = stem.find('.', prefix.size());
    if (at == std::string::npos) return {};
    for (const auto& [gguf, name] : weights_gguf_detail::kGgufBlockNames)
        if (stem.substr(at + 1) == name)
            return "blk." + stem.substr(prefix.size(), at - prefix.size()) + "." + gguf + suffix;
    return {};
}

Weights::Weights(std::shared_ptr<const GgufFile> file, const GgufLayout& layout)
    : dir_(file->path()), keep_(Keep::AsStored), gguf_(std::move(file)) {
    for (const GgufTensor& t : gguf_->tensors()) {
        std::string hf = gguf_hf_name(t.name);
        if (hf.empty()) continue;
        if (const auto at = hf.find(".mlp.up_proj."); layout.fused_gate_up && at != hf.npos)
            hf.replace(at, 13, ".mlp.gate_up_proj.");
        TensorInfo info;
        info.dtype = t.type == GgufType::F32    ? DType::F32
                     : t.type == GgufType::F16  ? DType::F16
                     : t.type == GgufType::BF16 ? DType::BF16
                                                : DType::Other;
        info.dtype_name = gguf_type_name(std::uint32_t(t.type));
        if (info.dtype == DType::Other) info.quantised = int(t.type);
        // ggml lists dimensions fastest first; Hugging Face's shapes are the other way round.
        for (auto d = t.dims.rbegin(); d != t.dims.rend(); ++d)
            info.shape.push_back(std::int64_t(*d));
        info.bytes = gguf_->data(t);
        info.file = &gguf_->mapped();
        const TensorInfo& kept = gguf_infos_[hf] = std::move(info);
        Entry e{nullptr, &kept, &t, 0};
        if (layout.unpermute_qk) {
            if (hf.find(".self_attn.q_proj.") != std::string::npos) e.permute_heads = layout.heads;
            if (hf.find(".self_attn.k_proj.") != std::string::npos)
                e.permute_heads = layout.kv_heads;
        }
        tensors_[hf] = e;
    }
    file_bytes_ = double(gguf_->size());
    require_memory(float_bytes(), "the weights of " + dir_,
                   "a smaller model, or a larger budget (--memory-budget)");
}

std::vector<Index> gguf_unpermuted_rows(Index rows, int heads, const std::string& what) {
    // convert_hf_to_gguf.py's permute: w.reshape(heads, 2, rows / heads / 2, …).swapaxes(1, 2):
    // Hugging Face's row h·hd + s·hd/2 + j is stored as row h·hd + 2j + s.
    if (heads <= 0 || rows % (2 * Index(heads)) != 0)
        throw ShapeError(what + " has " + std::to_string(rows) +
                         " rows, not whole heads of even size for " + std::to_string(heads) +
                         " heads");
    const Index hd = rows / heads, half = hd / 2;
    std::vector<Index> order(std::size_t(rows), 0);
    for (Index r = 0; r < rows; ++r) {
        const Index h = r / hd, i = r % hd;
        order[std::size_t(r)] = h * hd + 2 * (i % half) + i / half;
    }
    return order;
}

}  // namespace attn::model
