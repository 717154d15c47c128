// AttnScope — random Llama-family models of real shapes (Qwen2.5-0.5B, Llama-3.2-1B) written in
// the Hugging Face layout (config.json + a BF16 model.safetensors), seeded, for the benchmarks
// and their PyTorch anchor. No real weights can be fetched here; the shapes are what cost.
// GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace llama_bench {

/// The shape of a benchmark model.
struct Shape {
    std::string name, model_type;
    int layers, hidden, heads, kv_heads, intermediate, vocab;
    double rope_theta;
    bool qkv_bias;
    nlohmann::json rope_scaling;
};

/// Qwen2.5-0.5B: 24 layers, d 896, 14 query / 2 key-value heads, vocabulary 151,936, tied.
inline Shape qwen05() {
    return {"qwen2.5-0.5b", "qwen2", 24, 896, 14, 2, 4864, 151936, 1e6, true, nullptr};
}

/// Llama-3.2-1B: 16 layers, d 2048, 32 / 8 heads, vocabulary 128,256, tied, llama3 rope.
inline Shape llama1b() {
    return {"llama-3.2-1b",
            "llama",
            16,
            2048,
            32,
            8,
            8192,
            128256,
            5e5,
            false,
            {{"rope_type", "llama3"},
             {"factor", 32.0},
             {"low_freq_factor", 1.0},
             {"high_freq_factor", 4.0},
             {"original_max_position_embeddings", 8192}}};
}

/// Qwen2.5-0.5B's kinds of tensors at a tiny size (2 layers, d 64, 4 / 2 heads, vocabulary
/// 512): the benchmarks' smoke test in ctest.
inline Shape tiny() {
    return {"tiny-qwen2", "qwen2", 2, 64, 4, 2, 128, 512, 1e6, true, nullptr};
}

/// Every tensor of S with its shape, in the order transformers writes them.
inline std::vector<std::pair<std::string, std::vector<std::int64_t>>> tensors(const Shape& s) {
    const std::int64_t d = s.hidden, hd = s.hidden / s.heads, q = s.heads * hd,
                       kv = s.kv_heads * hd, ff = s.intermediate;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> t = {
        {"model.embed_tokens.weight", {s.vocab, d}}, {"model.norm.weight", {d}}};
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t.push_back({p + "input_layernorm.weight", {d}});
        t.push_back({p + "post_attention_layernorm.weight", {d}});
        t.push_back({p + "self_attn.q_proj.weight", {q, d}});
        t.push_back({p + "self_attn.k_proj.weight", {kv, d}});
        t.push_back({p + "self_attn.v_proj.weight", {kv, d}});
        if (s.qkv_bias) {
            t.push_back({p + "self_attn.q_proj.bias", {q}});
            t.push_back({p + "self_attn.k_proj.bias", {kv}});
            t.push_back({p + "self_attn.v_proj.bias", {kv}});
        }
        t.push_back({p + "self_attn.o_proj.weight", {d, q}});
        t.push_back({p + "mlp.gate_proj.weight", {ff, d}});
        t.push_back({p + "mlp.up_proj.weight", {ff, d}});
        t.push_back({p + "mlp.down_proj.weight", {d, ff}});
    }
    return t;
}

/// Writes S into DIR (created), unless DIR already holds it; returns the weights file's size.
inline std::uintmax_t write(const Shape& s, const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    fs::create_directories(dir);
    const fs::path file = dir / "model.safetensors", done = dir / ".complete";
    if (fs::exists(done)) return fs::file_size(file);
    nlohmann::json cfg = {{"model_type", s.model_type},
                          {"num_hidden_layers", s.layers},
                          {"hidden_size", s.hidden},
                          {"num_attention_heads", s.heads},
                          {"num_key_value_heads", s.kv_heads},
                          {"intermediate_size", s.intermediate},
                          {"vocab_size", s.vocab},
                          {"max_position_embeddings", 32768},
                          {"rms_norm_eps", 1e-6},
                          {"rope_theta", s.rope_theta},
                          {"hidden_act", "silu"},
                          {"tie_word_embeddings", true},
                          {"torch_dtype", "bfloat16"}};
    if (!s.rope_scaling.is_null()) cfg["rope_scaling"] = s.rope_scaling;
    std::ofstream(dir / "config.json") << cfg.dump(2);
    nlohmann::json header = nlohmann::json::object();
    std::int64_t offset = 0;
    const auto all = tensors(s);
    for (const auto& [name, shape] : all) {
        std::int64_t n = 1;
        for (const auto v : shape)
            n *= v;
        header[name] = {
            {"dtype", "BF16"}, {"shape", shape}, {"data_offsets", {offset, offset + 2 * n}}};
        offset += 2 * n;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::ofstream out(file, std::ios::binary);
    const std::uint64_t len = text.size();
    out.write(reinterpret_cast<const char*>(&len), 8);  // little-endian on x86
    out << text;
    // Uniform values of standard deviation 0.02 (norm gains near 1) from a seeded xorshift:
    // fast enough for 1.2 billion values, and the same file on every machine.
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    std::vector<std::uint16_t> buf;
    for (const auto& [name, shape] : all) {
        std::int64_t n = 1;
        for (const auto v : shape)
            n *= v;
        const bool gain = name.find("norm") != std::string::npos;
        buf.resize(std::size_t(n));
        for (std::int64_t i = 0; i < n; ++i) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            const float u = float(state >> 40) / float(1 << 24) * 2.f - 1.f;  // [−1, 1)
            float v = u * 0.0346f;                                            // σ = 0.02
            if (gain) v = 1.f + v;
            std::uint32_t bits;
            std::memcpy(&bits, &v, 4);
            buf[std::size_t(i)] = std::uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
        }
        out.write(reinterpret_cast<const char*>(buf.data()), std::streamsize(2 * n));
    }
    out.close();
    std::ofstream(done) << "ok\n";
    return fs::file_size(file);
}

/// 64 seeded token ids below VOCAB.
inline std::vector<std::int32_t> ids(int vocab, int n = 64) {
    std::vector<std::int32_t> out;
    std::uint64_t state = 12345;
    for (int i = 0; i < n; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        out.push_back(std::int32_t((state >> 33) % std::uint64_t(vocab)));
    }
    return out;
}

}  // namespace llama_bench
