// AttnScope core — a GGUF file of the gemma2 or gemma3 architecture as a Gemma model: its
// metadata as the config (llama.cpp's reading of it), its tensors under Hugging Face's names,
// norms (q/k norms too) stored as 1 + w, its embedded tokenizer. GPL-3.0-or-later.
#include "../decoder_sizes.hpp"
#include "attn/models/gemma/model.hpp"
#include "attn/util/error.hpp"

namespace attn::gemma {

namespace {

/// The positive number at KEY when present, else 0 (a soft-cap the file does not state).
float optional_cap(const model::GgufFile& f, const std::string& key) {
    return f.metadata().count(key) ? float(model::gguf_positive_number(f, key, 1)) : 0.f;
}

/// Gemma 3's rotary: rope_scaling (linear) on the global layers only; the local layers' base
/// from rope.freq_base_swa when the file states it, else llama.cpp's 10000 (Gemma 3's
/// rope_local_base_freq, which its converter does not write).
void read_gemma3_rope(const model::GgufFile& f, Config& c) {
    const std::string key = "gemma3.rope.scaling.type";
    const std::string type = f.metadata().count(key) ? f.string(key) : "none";
    if (type == "linear") {
        c.rope.scaling = blocks::RopeScaling::Linear;
        c.rope.factor = model::gguf_positive_number(f, "gemma3.rope.scaling.factor", -1);
    } else if (type != "none") {
        throw FormatError(f.path() + ": rope scaling \"" + type +
                          "\" is not supported for gemma3 (AttnScope runs none and linear)");
    }
    c.local_rope.theta = model::gguf_positive_number(f, "gemma3.rope.freq_base_swa", 10000.0);
}

}  // namespace

Config gguf_config(const model::GgufFile& f) {
    const std::string arch = f.string("general.architecture");
    if (arch != "gemma2" && arch != "gemma3")
        throw FormatError(f.path() + ": architecture \"" + arch + "\" is not gemma2 or gemma3");
    const bool g3 = arch == "gemma3";
    Config c;
    c.model_type = g3 ? "gemma3_text" : arch;  // a Gemma 3 folder's family name
    const std::string a = arch + ".";
    model::read_gguf_sizes(f, arch, c);
    c.rms_norm_eps = model::gguf_positive_number(f, a + "attention.layer_norm_rms_epsilon", -1);
    // llama.cpp scales by 1/√head_dim, except for the 27B models (Gemma 2's 46 layers, Gemma 3's
    // 62): 1/√(d / heads), their query_pre_attn_scalar; the file does not state it.
    c.query_pre_attn_scalar =
        c.layers == (g3 ? 62 : 46) ? double(c.hidden) / double(c.heads) : double(c.head_dim);
    c.attn_softcap = optional_cap(f, a + "attn_logit_softcapping");
    c.final_softcap = optional_cap(f, a + "final_logit_softcapping");
    // Gemma 3's window is required (llama.cpp reads it so); Gemma 2's defaults to 4096.
    c.sliding_window = model::gguf_positive(f, a + "attention.sliding_window", g3 ? 0 : 4096);
    // llama.cpp's kinds: Gemma 2 windows the even layers; Gemma 3 every layer but each sixth
    // (set_swa_pattern(6): layers 5, 11, … are global), as transformers' sliding_window_pattern.
    const int pattern = g3 ? 6 : 2;
    c.window_layers.assign(std::size_t(c.layers), false);
    for (int l = 0; l < c.layers; ++l)
        c.window_layers[std::size_t(l)] = (l + 1) % pattern != 0;
    c.rope.rotary_dim = c.head_dim;
    c.rope.theta = model::gguf_positive_number(f, a + "rope.freq_base", g3 ? 1000000.0 : 10000.0);
    c.local_rope = c.rope;
    if (g3) read_gemma3_rope(f, c);
    c.vocab = model::gguf_vocab(f);
    c.attention_bias = f.find("blk.0.attn_q.bias") != nullptr;
    c.qk_norm = g3;
    c.tied = f.find("output.weight") == nullptr;
    return c;
}

std::shared_ptr<Model> Model::open_gguf(std::shared_ptr<const model::GgufFile> file) {
    Config c = gguf_config(*file);
    // Gemma's converter does not permute Q and K (its rotary is NEOX-style).
    auto weights = std::make_unique<model::Weights>(file, model::GgufLayout{});
    // gguf_hf_name: attn_norm, post_attention_norm, ffn_norm (before the feed-forward),
    // post_ffw_norm, Gemma 3's attn_q_norm and attn_k_norm; every norm already 1 + w.
    const Names names{"model.", "post_attention_norm", "post_attention_layernorm"};
    return assemble(std::move(c), std::move(weights), file->path(), names, blocks::Gain::W);
}

model::ModelFolder open_gguf(const std::string& path) {
    return model::open_gguf_with_tokenizer<Model>(path);
}

}  // namespace attn::gemma
