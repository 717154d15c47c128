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

#include "attn/models/gpt2/model.hpp"
#include "attn/scene/model_scene.hpp"
#include "gpt2_small_folder.hpp"

namespace {

using bench::kVocab;
using bench::model_dir;
namespace fs = std::filesystem;

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
