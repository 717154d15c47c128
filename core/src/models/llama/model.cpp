// AttnScope core — the Llama family run natively, a composition of blocks:
// RMSNorm, grouped-query attention with rotary positions, SwiGLU, pre-norm
// residuals; the attention controls inside the run. GPL-3.0-or-later.
#include "attn/models/llama/model.hpp"

#include <cmath>

#include "../family_parts.hpp"
#include "../open_tokenizer.hpp"
#include "attn/blocks/attention.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/residual.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

std::shared_ptr<Model> Model::open(const std::string& dir) {
    Config c = read_config(dir + "/config.json");
    // Large F16 / BF16 matrices stay in the mapped file, widened a tile at a time as they are
    // used: a 1B model opens without widening 2.5 GB, and a one-token step reads half the bytes.
    return assemble(std::move(c), std::make_unique<model::Weights>(dir, model::Keep::AsStored),
                    dir);
}

std::shared_ptr<Model> Model::assemble(Config config, std::unique_ptr<model::Weights> weights,
                                       const std::string& dir) {
    auto m = std::make_shared<Model>();
    m->config_ = std::move(config);
    m->weights_ = std::move(weights);
    const Config& c = m->config_;
    const model::Weights& w = *m->weights_;
    m->inv_freq_ = rope_frequencies(c);
    model::ModelInfo& info = m->info_;
    info.family = c.model_type;
    info.display = c.model_type == "llama"     ? "Llama"
                   : c.model_type == "mistral" ? "Mistral"
                   : c.model_type == "qwen2"   ? "Qwen2"
                   : c.model_type == "qwen3"   ? "Qwen3"
                   : c.model_type == "phi3"    ? "Phi-3"
                   : c.model_type == "olmo2"   ? "OLMo-2"
                                               : "Mixtral";
    model::set_decoder_info(info, c, w);
    info.sliding_window = c.sliding_window;
    info.pre_norm = !c.post_norms;  // OLMo-2 normalises each block's output
    for (const auto& [name, e] : w.tensors())
        if (name.find("rotary_emb") == std::string::npos && !(c.tied && name == "lm_head.weight"))
            info.parameters += e.info->count();
    // LlamaForCausalLM's weights carry a "model." prefix, LlamaModel's none.
    const std::string p = w.find("model.embed_tokens.weight") ? "model." : "";
    info.folder = dir;
    info.layer_prefix = p + "layers.";
    const model::DecoderWidths n = model::decoder_widths(c);
    const Index d = n.d, ff = n.ff;
    const auto linear = [&](const std::string& name, Index out, Index in, bool bias) {
        return model::read_linear(w, name, out, in, bias);
    };
    const auto read = [&](const std::string& b, Block& blk) {
        if (!c.post_norms) blk.input_norm = w.get(b + "input_layernorm.weight", 1, d);
        blk.post_norm = w.get(b + "post_attention_layernorm.weight", 1, d);
        if (c.post_norms) blk.ff_norm = w.get(b + "post_feedforward_layernorm.weight", 1, d);
        if (c.qk_norm || c.qk_norm_whole) {
            blk.q_norm = w.get(b + "self_attn.q_norm.weight", 1, c.qk_norm ? n.hd : n.qd);
            blk.k_norm = w.get(b + "self_attn.k_norm.weight", 1, c.qk_norm ? n.hd : n.kvd);
        }
        if (c.fused_qkv)
            blk.qkv = linear(b + "self_attn.qkv_proj", n.qd + 2 * n.kvd, d, c.qkv_bias);
        else
            model::read_qkv(w, b, n, c.qkv_bias, blk);
        blk.o = linear(b + "self_attn.o_proj", d, n.qd, c.o_bias);
        if (c.experts > 0) {
            const std::string moe = b + "block_sparse_moe.";
            blk.router = linear(moe + "gate", c.experts, d, false);
            for (int e = 0; e < c.experts; ++e) {
                const std::string x = moe + "experts." + std::to_string(e) + ".";
                blk.w1.push_back(linear(x + "w1", ff, d, false));
                blk.w2.push_back(linear(x + "w2", d, ff, false));
                blk.w3.push_back(linear(x + "w3", ff, d, false));
            }
        } else if (c.fused_gate_up) {
            blk.gate_up = linear(b + "mlp.gate_up_proj", 2 * ff, d, c.mlp_bias);
            blk.down = linear(b + "mlp.down_proj", d, ff, c.mlp_bias);
        } else {
            blk.gate = linear(b + "mlp.gate_proj", ff, d, c.mlp_bias);
            blk.up = linear(b + "mlp.up_proj", ff, d, c.mlp_bias);
            blk.down = linear(b + "mlp.down_proj", d, ff, c.mlp_bias);
        }
    };
    model::read_decoder_tensors(w, c, p, m->embed_, m->norm_, m->blocks_, read);
    if (!c.tied)
        m->lm_head_ = model::read_output_head(w, "lm_head.weight", c.vocab, d,
                                              "a base model without its output head?");
    return m;
}

Matrix Model::embed(const std::vector<std::int32_t>& ids, Index first) const {
    const blocks::EmbeddingSpec<FloatTensor, float> spec{&embed_};
    return blocks::embed<float>(spec, ids, {}, first, config_.hidden);
}

Vector Model::logits(const Matrix& x) const {
    const Matrix last = blocks::rms_norm(x, norm_, config_.rms_norm_eps);
    const FloatTensor& head = config_.tied ? embed_ : lm_head_;
    return head.mul_t(last.topRows(1)).transpose();
}

Matrix Model::head_to_residual(int l, int h, const Matrix& z) const {
    return model::head_through(blocks_[std::size_t(l)].o, h, config_.head_dim, z);
}

Vector Model::attention_bias(int l) const {
    return model::bias_or_zero(blocks_[std::size_t(l)].o, config_.hidden);
}

model::Model::FrozenNorm Model::final_norm(const Matrix& x) const {
    return model::frozen_final_norm(
        blocks::freeze_rms_norm<float>(x.topRows(1), norm_.matrix().row(0), config_.rms_norm_eps));
}

Vector Model::unembedding(std::int32_t token, float* bias) const {
    return model::tied_head_row(config_.tied, embed_, lm_head_, token, bias);
}

model::ModelFolder open_folder(const std::string& dir) {
    return model::open_with_tokenizer<Model>(dir);
}

}  // namespace attn::llama
