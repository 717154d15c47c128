// AttnScope core — a GGUF file of the llama, qwen2 or phi3 architecture as a Llama-family model:
// its metadata as the config, its tensors under Hugging Face's names, its embedded tokenizer.
// GPL-3.0-or-later.
#include <cmath>

#include "../gguf_fields.hpp"
#include "attn/models/gguf_tokenizer.hpp"
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
    c.layers = gd::gguf_positive(f, a + "block_count");
    c.hidden = gd::gguf_positive(f, a + "embedding_length");
    c.intermediate = gd::gguf_positive(f, a + "feed_forward_length");
    c.heads = gd::gguf_positive(f, a + "attention.head_count");
    c.kv_heads = gd::gguf_positive(f, a + "attention.head_count_kv", c.heads);
    c.max_positions = gd::gguf_positive(f, a + "context_length");
    if (c.hidden % c.heads != 0 && !f.metadata().count(a + "attention.key_length"))
        throw FormatError(f.path() + ": " + a + "attention.head_count " + std::to_string(c.heads) +
                          " does not divide " + a + "embedding_length " + std::to_string(c.hidden));
    c.head_dim = gd::gguf_positive(f, a + "attention.key_length", c.hidden / c.heads);
    if (gd::gguf_positive(f, a + "attention.value_length", c.head_dim) != c.head_dim)
        throw FormatError(f.path() + ": " + a + "attention.value_length differs from " + a +
                          "attention.key_length; AttnScope runs equal ones");
    check_heads(c, f.path(), (a + "attention.key_length").c_str(),
                (a + "attention.head_count_kv").c_str(), (a + "attention.head_count").c_str());
    if (gd::gguf_positive(f, a + "rope.dimension_count", c.head_dim) != c.head_dim)
        throw FormatError(f.path() + ": " + a + "rope.dimension_count is " +
                          std::to_string(f.integer(a + "rope.dimension_count", 0)) +
                          ", not the head size " + std::to_string(c.head_dim) +
                          " (partial rotary is not supported)");
    c.rms_norm_eps = gd::gguf_positive_number(f, a + "attention.layer_norm_rms_epsilon", -1);
    c.rope.rotary_dim = c.head_dim;
    c.rope.theta = gd::gguf_positive_number(f, a + "rope.freq_base", 10000.0);
    if (arch != "phi3") gd::read_rope(f, arch, c);
    const model::GgufTensor* embd = f.find("token_embd.weight");
    if (!embd) throw FormatError(f.path() + ": tensor \"token_embd.weight\" is missing.");
    if (embd->dims.size() != 2 || embd->dims[1] > (1u << 24))
        throw FormatError(f.path() + ": tensor \"token_embd.weight\" is not a matrix of at most " +
                          std::to_string(1u << 24) + " rows.");
    c.vocab = int(embd->dims[1]);
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
    const auto file = std::make_shared<const model::GgufFile>(path);
    model::ModelFolder f;
    f.dir = path;
    const auto model = Model::open_gguf(file);
    f.model = model;
    f.tokenizer = model::gguf_tokenizer(*file);
    if (Index(f.tokenizer->vocab_size()) > model->config().vocab)
        throw FormatError(path + ": the tokenizer has " +
                          std::to_string(f.tokenizer->vocab_size()) +
                          " tokens, more than token_embd.weight's " +
                          std::to_string(model->config().vocab) + " rows");
    model->set_text_vocab(int(f.tokenizer->vocab_size()));
    return f;
}

}  // namespace attn::llama
