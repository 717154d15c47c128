// AttnScope — GPT-2's forward pass at GPT-2 small's size (12 layers × 12 heads × 768, vocabulary
// 50257) with every attention stage kept. Targets (issue 16): 64 tokens ≤ 150 ms on 2 cores,
// peak RSS ≤ weights file + 300 MB (the maxrss counter, in MB, against file_MB).
//   build/release/tests/bench/core_gpt2_bench [--benchmark_filter=…]
// The weights are random (no real GPT-2 can be fetched here) but of the real shapes, written
// once to a temporary folder in the Hugging Face layout.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "attn/gpt2/model.hpp"
#include "attn/model/model_scene.hpp"

namespace {

namespace fs = std::filesystem;
constexpr int kLayers = 12, kHeads = 12, kEmbd = 768, kPositions = 1024, kVocab = 50257;

/// Writes a random GPT-2 small (F32) into a fresh temporary folder, once per process.
const std::string& model_dir() {
    static const std::string dir = [] {
        const fs::path d = fs::temp_directory_path() / "attnscope_gpt2_bench";
        fs::create_directories(d);
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

double maxrss_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0;
}

void BM_Gpt2Forward(benchmark::State& state) {
    const auto model = attn::gpt2::Model::open(model_dir());
    std::vector<std::int32_t> ids(std::size_t(state.range(0)));
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = std::int32_t((i * 7919) % kVocab);
    for (auto _ : state) {
        ids[ids.size() / 2] = (ids[ids.size() / 2] + 1) % kVocab;  // a retyped word: a new run
        benchmark::DoNotOptimize(model->run(ids).logits.data());
    }
    state.counters["maxrss_MB"] = maxrss_mb();
    state.counters["file_MB"] =
        double(fs::file_size(fs::path(model_dir()) / "model.safetensors")) / (1 << 20);
}
BENCHMARK(BM_Gpt2Forward)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The GUI's path when one word of a 64-token sentence is retyped: compute_scene of a model
/// scene (tokenise, run every layer with the stages kept, the shown layer's scene and the top
/// 10). Issue 16's budget: ≤ 150 ms. Every iteration types a new 16-letter word, so no run is
/// found whole in the cache. Arg 0: the last word is retyped, and the 48 tokens before it are
/// reused from the previous run (GPT-2 is causal); arg 1: the first word, nothing is reused.
/// Measured 2026-12-01 on the shared 2-core machine at load average 5: medians of 61 ms (last
/// word, 48 tokens reused) and 79 ms (first word) of main-thread CPU; 115 and 222 ms of wall
/// clock while other builds held the cores. Reading the 0.5 GB of weights bounds the saving.
void BM_Gpt2RetypeWord(benchmark::State& state) {
    attn::SceneSpec spec;
    spec.model =
        std::make_shared<const attn::model::ModelFolder>(attn::gpt2::open_folder(model_dir()));
    spec.mask = attn::gpt2::causal();
    const std::string rest = "Attention lets every token look at all others;  ";  // 48 bytes
    const bool last = state.range(0) == 0;
    std::size_t i = 0;
    attn::Index reused = 0;
    for (auto _ : state) {
        std::string word(16, ' ');
        for (std::size_t k = 0; k < word.size(); ++k)
            word[k] = char('a' + (i * 7 + k * 13) % 26);
        ++i;
        spec.text = last ? rest + word : word + rest;
        const attn::SceneResult r = attn::compute_scene(spec);
        reused = r.run->reused;
        benchmark::DoNotOptimize(r.next_tokens.data());
    }
    state.counters["tokens"] = 64;
    state.counters["reused"] = double(reused);
}
BENCHMARK(BM_Gpt2RetypeWord)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
