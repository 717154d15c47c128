// AttnScope core — a phi3-architecture GGUF file as llama.cpp's convert_hf_to_gguf.py
// (Phi3MiniModel) writes it: fused attn_qkv and ffn_up (gate then up), Q and K rows not
// permuted, longrope's factors as the tensors rope_factors_long / rope_factors_short.
// GPL-3.0-or-later.
#include "gguf_phi3.hpp"

#include <cmath>

#include "../gguf_fields.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

namespace {

/// The rope factor tensor NAME: head_dim / 2 positive finite numbers.
std::vector<double> rope_factors(const model::GgufFile& f, const model::GgufTensor& t,
                                 std::size_t count) {
    if (t.dims.size() != 1 || t.dims[0] != count)
        throw FormatError(f.path() + ": tensor \"" + t.name + "\" has " + std::to_string(t.count) +
                          " values, expected head_dim / 2 = " + std::to_string(count));
    std::vector<double> out;
    for (const float v : f.floats(t)) {
        if (!(v > 0) || !std::isfinite(v))
            throw FormatError(f.path() + ": tensor \"" + t.name + "\" holds " + std::to_string(v) +
                              ", not a positive factor");
        out.push_back(double(v));
    }
    return out;
}

}  // namespace

void read_phi3_gguf(const model::GgufFile& f, Config& c) {
    c.fused_qkv = c.fused_gate_up = true;
    c.qkv_bias = f.find("blk.0.attn_qkv.bias") != nullptr;
    c.mlp_bias = f.find("blk.0.ffn_up.bias") != nullptr;
    // The converter writes Phi3Config's sliding_window (a window of that many keys); none when
    // the key is absent.
    c.sliding_window = f.metadata().count("phi3.attention.sliding_window")
                           ? model::gguf_positive(f, "phi3.attention.sliding_window")
                           : 0;
    if (f.metadata().count("phi3.rope.scaling.type")) {
        const std::string type = f.string("phi3.rope.scaling.type");
        if (type != "none" && type != "longrope")
            throw FormatError(f.path() + ": rope scaling \"" + type +
                              "\" is not supported for phi3 (AttnScope runs none and longrope)");
    }
    const model::GgufTensor* lo = f.find("rope_factors_long.weight");
    const model::GgufTensor* sh = f.find("rope_factors_short.weight");
    if (!lo && !sh) return;  // default rope: a 4k model
    if (!lo || !sh)
        throw FormatError(
            f.path() + ": tensor \"" +
            std::string(lo ? "rope_factors_short.weight" : "rope_factors_long.weight") +
            "\" is missing beside \"" + (lo ? lo->name : sh->name) + "\" (longrope needs both)");
    blocks::RopeSpec& rope = c.rope;
    rope.scaling = blocks::RopeScaling::LongRope;
    rope.long_factors = rope_factors(f, *lo, std::size_t(c.head_dim / 2));
    rope.short_factors = rope_factors(f, *sh, std::size_t(c.head_dim / 2));
    const int original = model::gguf_positive(f, "phi3.rope.scaling.original_context_length");
    rope.original_max_positions = original;
    // The converter's attention factor, transformers' default when a file leaves it out.
    const double factor = double(c.max_positions) / double(original);
    const double computed =
        factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(factor) / std::log(double(original)));
    rope.attention_factor =
        model::gguf_positive_number(f, "phi3.rope.scaling.attn_factor", computed);
}

}  // namespace attn::llama
