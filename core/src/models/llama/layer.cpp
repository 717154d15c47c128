// AttnScope core — one layer of the Llama family as a composition of blocks: RMSNorm, q/k/v
// (separate, or Phi-3's fused qkv_proj; Qwen3's per-head or OLMo-2's whole-projection q/k
// norms), rotary positions (Phi-3's longrope by the run's length), grouped-query attention,
// SwiGLU (or Phi-3's fused gate_up_proj, or Mixtral's experts), pre-norm residuals or OLMo-2's
// norms after each block. GPL-3.0-or-later.
#include "../cached_heads.hpp"
#include "attn/blocks/attention.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/moe.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/residual.hpp"
#include "attn/models/llama/model.hpp"

namespace attn::llama {

AttentionParams Model::layer_params(int l) const {
    AttentionParams p = model::Model::layer_params(l);
    // Mistral's causal window: query i sees keys in (i − window, i] (transformers'
    // sliding_window_causal: kv_idx > q_idx − sliding_window), built a tile at a time.
    if (config_.sliding_window > 0) {
        p.mask.kind = MaskKind::CausalWindow;
        p.mask.window = config_.sliding_window;
    }
    return p;
}

std::vector<double> Model::frequencies(Index n) const {
    return config_.rope.scaling == blocks::RopeScaling::LongRope
               ? blocks::rope_frequencies(config_.rope, n)
               : inv_freq_;
}

bool Model::prefix_holds(Index prefix_length, Index n) const {
    if (config_.rope.scaling != blocks::RopeScaling::LongRope) return true;
    const double original = config_.rope.original_max_positions;
    return (double(prefix_length) > original) == (double(n) > original);
}

void Model::project(const Block& b, const Matrix& h, Matrix& q, Matrix& k, Matrix& v) const {
    const Config& c = config_;
    const Index qd = Index(c.heads) * c.head_dim, kvd = Index(c.kv_heads) * c.head_dim;
    if (c.fused_qkv) {
        // Phi-3's qkv_proj: every query head's rows, then the keys', then the values'.
        const Matrix qkv = b.qkv(h);
        q = qkv.leftCols(qd);
        k = qkv.middleCols(qd, kvd);
        v = qkv.rightCols(kvd);
    } else {
        q = b.q(h), k = b.k(h), v = b.v(h);
    }
    if (c.qk_norm_whole) {
        // OLMo-2: RMSNorm over all heads of q (and of k) at once, before the heads split.
        q = blocks::rms_norm(q, b.q_norm, c.rms_norm_eps);
        k = blocks::rms_norm(k, b.k_norm, c.rms_norm_eps);
    }
}

Matrix Model::feed_forward(const Block& b, const Matrix& h, Index first,
                           const model::LayerAttention* past, model::LayerAttention& out) const {
    const Config& c = config_;
    const auto swiglu = [](const Linear& gate, const Linear& up, const Linear& down,
                           const Matrix& t) {
        // SwiGLU: silu(gate) ⊙ up, silu(g) = g / (1 + e^−g).
        return down(blocks::gated<float>(gate(t), up(t), blocks::Activation::Silu));
    };
    if (c.experts == 0 && c.fused_gate_up) {
        const auto [gate, up] = blocks::split_gate_up<float>(b.gate_up(h));
        return b.down(blocks::gated<float>(gate, up, blocks::Activation::Silu));
    }
    if (c.experts == 0) return swiglu(b.gate, b.up, b.down, h);
    // Mixtral: each position to its top experts, their SwiGLUs weighted by the routing.
    const blocks::Routing<float> r =
        blocks::route_top_k<float>(b.router(h), Index(c.experts_per_token));
    const Index m = h.rows(), k = r.experts.cols();
    out.router_experts.resize(first + m, k);
    out.router_weights.resize(first + m, k);
    if (first > 0) {
        out.router_experts.topRows(first) = past->router_experts.topRows(first);
        out.router_weights.topRows(first) = past->router_weights.topRows(first);
    }
    out.router_experts.bottomRows(m) = r.experts;
    out.router_weights.bottomRows(m) = r.weights;
    const auto expert = [&](Index e, const Matrix& rows) {
        const std::size_t i = std::size_t(e);
        return swiglu(b.w1[i], b.w3[i], b.w2[i], rows);
    };
    return blocks::mixture<float>(h, r, Index(c.experts), Index(c.hidden), expert);
}

void Model::layer(int l, Matrix& x, Index first, const model::LayerAttention* past,
                  const model::LayerControls& controls, model::LayerAttention& out,
                  model::Hooks& hooks) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    const Index m = x.rows(), n = first + m, hd = c.head_dim;
    const auto norm = [&](const FloatTensor& gain) {
        return [&](const Matrix& t) { return blocks::rms_norm(t, gain, c.rms_norm_eps); };
    };
    const auto attention = [&](const Matrix& h) {
        Matrix q, k, v;
        project(b, h, q, k, v);
        const blocks::RopeTable<float> table =
            blocks::rope_table<float>(frequencies(n), first, m, c.rope.attention_factor);
        // A head's new rows: qwen3's norm over head_dim, then rotary positions unless turned
        // off. Mistral's window is in the params (layer_params).
        const auto rows = [&](Index head, blocks::Part part) {
            const bool query = part == blocks::Part::Q;
            Matrix t = (query ? q : part == blocks::Part::K ? k : v).middleCols(head * hd, hd);
            if (part == blocks::Part::V) return t;
            if (c.qk_norm) t = blocks::rms_norm(t, query ? b.q_norm : b.k_norm, c.rms_norm_eps);
            if (controls.rotary) blocks::rotate_half(t, table);
            return t;
        };
        return Matrix(b.o(model::attend_cached_heads(rows, c.heads, c.kv_heads, hd, m, first, past,
                                                     controls.params, l, hooks, out)));
    };
    const auto mlp = [&](const Matrix& h) { return feed_forward(b, h, first, past, out); };
    if (c.post_norms) {
        // OLMo-2: x + norm(attn(x)), then x + norm(mlp(x)); the hooks see what the residual
        // stream receives.
        const auto same = [](const Matrix& t) { return t; };
        hooks.attn_out(l, first, blocks::sandwich<float>(x, same, attention, norm(b.post_norm)));
        hooks.mlp_out(l, first, blocks::sandwich<float>(x, same, mlp, norm(b.ff_norm)));
        return;
    }
    hooks.attn_out(l, first, blocks::pre_norm<float>(x, norm(b.input_norm), attention));
    hooks.mlp_out(l, first, blocks::pre_norm<float>(x, norm(b.post_norm), mlp));
}

}  // namespace attn::llama
