// AttnScope core — a GGUF file of the llama, qwen2 or phi3 architecture as a Llama-family model:
// its metadata as the config, its tensors under Hugging Face's names, its embedded tokenizer.
// GPL-3.0-or-later.
#include <cmath>

#include "../decoder_sizes.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"
#include "gguf_phi3.hpp"

namespace attn::llama {

namespace gguf_detail {

using model::gguf_positive;
using model::gguf_positive_number;

void read_rope(const model::GgufFile& f, const std::string& arch, Config& c) {
    const std::string key = arch + ".rope.scaling.type";
    const std::string type = f.metadata().count(key) ? f.string(key) : "none";
    if (type == "linear") {
        c.rope.scaling = blocks::RopeScaling::Linear;
        c.rope.factor = gguf_positive_number(f, arch + ".rope.scaling.factor", -1);
    } else if (type != "none") {
        throw FormatError(f.path() + ": rope scaling \"" + type +
                          "\" is not supported (AttnScope runs none, linear, and llama3's "
                          "rope_freqs)");
    }
    // Older files state a linear factor alone.
    if (c.rope.scaling == blocks::RopeScaling::None &&
        f.metadata().count(arch + ".rope.scale_linear")) {
        c.rope.factor = gguf_positive_number(f, arch + ".rope.scale_linear", 1);
        if (c.rope.factor != 1) c.rope.scaling = blocks::RopeScaling::Linear;
    }
    // Llama 3.1's scaling is stored as a tensor of per-frequency factors.
    if (const model::GgufTensor* t = f.find("rope_freqs.weight")) {
        if (t->dims.size() != 1 || t->dims[0] != std::uint64_t(c.head_dim / 2))
            throw FormatError(f.path() + ": tensor \"rope_freqs.weight\" has " +
                              std::to_string(t->count) +
                              " values, expected head_dim / 2 = " + std::to_string(c.head_dim / 2));
        for (const float v : f.floats(*t)) {
            if (!(v > 0) || !std::isfinite(v))
                throw FormatError(f.path() + ": tensor \"rope_freqs.weight\" holds " +
                                  std::to_string(v) + ", not a positive factor");
            c.rope.freq_factors.push_back(double(v));
        }
    }
}

}  // namespace gguf_detail

Config gguf_config(const model::GgufFile& f) {
    namespace gd = gguf_detail;
    const std::string arch = f.string("general.architecture");
    if (arch != "llama" && arch != "qwen2" && arch != "phi3")
        throw FormatError(f.path() + ": architecture \"" + arch +
                          "\" is not a Llama-family one (llama, qwen2, phi3)");
    Config c;
    c.model_type = arch;
    const std::string a = arch + ".";
    model::read_gguf_sizes(f, arch, c);
    if (gd::gguf_positive(f, a + "rope.dimension_count", c.head_dim) != c.head_dim)
        throw FormatError(f.path() + ": " + a + "rope.dimension_count is " +
                          std::to_string(f.integer(a + "rope.dimension_count", 0)) +
                          ", not the head size " + std::to_string(c.head_dim) +
                          " (partial rotary is not supported)");
    c.rms_norm_eps = gd::gguf_positive_number(f, a + "attention.layer_norm_rms_epsilon", -1);
    c.rope.rotary_dim = c.head_dim;
    c.rope.theta = gd::gguf_positive_number(f, a + "rope.freq_base", 10000.0);
    if (arch != "phi3") gd::read_rope(f, arch, c);
    c.vocab = model::gguf_vocab(f);
    // Biases and the output head are whatever the file holds (qwen2's q/k/v biases always).
    c.qkv_bias = arch == "qwen2" || f.find("blk.0.attn_q.bias") != nullptr;
    c.o_bias = f.find("blk.0.attn_output.bias") != nullptr;
    c.mlp_bias = f.find("blk.0.ffn_gate.bias") != nullptr;
    c.tied = f.find("output.weight") == nullptr;
    if (arch == "phi3") read_phi3_gguf(f, c);  // its fused tensors, window and longrope
    return c;
}

std::shared_ptr<Model> Model::open_gguf(std::shared_ptr<const model::GgufFile> file) {
    Config c = gguf_config(*file);
    // llama.cpp's converter permutes llama's Q and K rows (LlamaModel.permute), not qwen2's or
    // phi3's (whose attn_qkv is stored as Hugging Face has it).
    model::GgufLayout layout;
    layout.unpermute_qk = c.model_type == "llama";
    layout.heads = c.heads;
    layout.kv_heads = c.kv_heads;
    layout.fused_gate_up = c.fused_gate_up;
    auto weights = std::make_unique<model::Weights>(file, layout);
    return assemble(std::move(c), std::move(weights), file->path());
}

model::ModelFolder open_gguf(const std::string& path) {
    return model::open_gguf_with_tokenizer<Model>(path);
}

}  // namespace attn::llama
