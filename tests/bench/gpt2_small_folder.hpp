// AttnScope — a random GPT-2 small (12 layers × 12 heads × 768, vocabulary 50257, F32) in the
// Hugging Face layout, written once per process to a temporary folder: the benchmarks' model
// (no real GPT-2 can be fetched here). GPL-3.0-or-later.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace bench {

namespace fs = std::filesystem;
constexpr int kLayers = 12, kHeads = 12, kEmbd = 768, kPositions = 1024, kVocab = 50257;

/// Writes a random GPT-2 small (F32) into a fresh temporary folder, once per process.
inline const std::string& model_dir() {
    static const std::string dir = [] {
        // One folder per process, removed at exit: two benchmarks writing one shared folder
        // truncate each other's mapped weights (SIGBUS).
        static const fs::path d =
            fs::temp_directory_path() / ("attnscope_gpt2_bench_" + std::to_string(::getpid()));
        fs::create_directories(d);
        std::atexit([] { fs::remove_all(d); });
        std::ofstream(d / "config.json") << nlohmann::json{{"model_type", "gpt2"},
                                                           {"n_layer", kLayers},
                                                           {"n_head", kHeads},
                                                           {"n_embd", kEmbd},
                                                           {"n_positions", kPositions},
                                                           {"vocab_size", kVocab},
                                                           {"activation_function", "gelu_new"}};
        std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes = {
            {"wte.weight", {kVocab, kEmbd}},
            {"wpe.weight", {kPositions, kEmbd}},
            {"ln_f.weight", {kEmbd}},
            {"ln_f.bias", {kEmbd}}};
        for (int l = 0; l < kLayers; ++l) {
            const std::string h = "h." + std::to_string(l) + ".";
            for (const auto& [name, shape] :
                 std::vector<std::pair<std::string, std::vector<std::int64_t>>>{
                     {"ln_1.weight", {kEmbd}},
                     {"ln_1.bias", {kEmbd}},
                     {"attn.c_attn.weight", {kEmbd, 3 * kEmbd}},
                     {"attn.c_attn.bias", {3 * kEmbd}},
                     {"attn.c_proj.weight", {kEmbd, kEmbd}},
                     {"attn.c_proj.bias", {kEmbd}},
                     {"ln_2.weight", {kEmbd}},
                     {"ln_2.bias", {kEmbd}},
                     {"mlp.c_fc.weight", {kEmbd, 4 * kEmbd}},
                     {"mlp.c_fc.bias", {4 * kEmbd}},
                     {"mlp.c_proj.weight", {4 * kEmbd, kEmbd}},
                     {"mlp.c_proj.bias", {kEmbd}}})
                shapes.push_back({h + name, shape});
        }
        nlohmann::json header;
        std::int64_t offset = 0;
        for (const auto& [name, shape] : shapes) {
            std::int64_t n = 1;
            for (auto s : shape)
                n *= s;
            header[name] = {
                {"dtype", "F32"}, {"shape", shape}, {"data_offsets", {offset, offset + 4 * n}}};
            offset += 4 * n;
        }
        std::string text = header.dump();
        text.append((8 - text.size() % 8) % 8, ' ');
        std::ofstream out(d / "model.safetensors", std::ios::binary);
        const std::uint64_t len = text.size();
        out.write(reinterpret_cast<const char*>(&len), 8);  // little-endian on x86
        out << text;
        std::mt19937 rng(1);
        std::normal_distribution<float> normal(0.f, 0.02f);
        std::vector<float> buf(1 << 20);
        for (std::int64_t left = offset / 4; left > 0; left -= std::int64_t(buf.size())) {
            const auto n = std::min<std::int64_t>(left, std::int64_t(buf.size()));
            for (std::int64_t i = 0; i < n; ++i)
                buf[std::size_t(i)] = normal(rng);
            out.write(reinterpret_cast<const char*>(buf.data()), n * 4);
        }
        // A byte-level tokenizer (one token per byte; its one merge, "qz", never fires on the
        // text below): a 64-character text is 64 tokens, so the scene benchmark runs 64.
        nlohmann::json vocab;
        int extra = 0;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
            const int cp = printable ? b : 256 + extra++;  // GPT-2's bytes_to_unicode
            std::string sym;
            if (cp < 0x80) {
                sym += char(cp);
            } else {
                sym += char(0xC0 | (cp >> 6));
                sym += char(0x80 | (cp & 0x3F));
            }
            vocab[sym] = b;
        }
        vocab["qz"] = 256;
        std::ofstream(d / "vocab.json") << vocab.dump();
        std::ofstream(d / "merges.txt") << "#version: 0.2\nq z\n";
        return d.string();
    }();
    return dir;
}

}  // namespace bench
