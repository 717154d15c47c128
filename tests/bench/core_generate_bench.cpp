// AttnScope — generation at GPT-2 small's size (random weights, gpt2_small_folder.hpp): 64 tokens
// after a 16-token prompt, every step reusing the earlier positions (the key–value cache), every
// attention stage kept. Target (issue 29): ≤ 3 s, the median of 5 runs.
//   build/release/tests/bench/core_generate_bench [--benchmark_filter=…]
// BM_GenerateNoCache runs each step afresh (no prefix) for comparison.
#include <benchmark/benchmark.h>

#include "attn/generate/generate.hpp"
#include "attn/models/families.hpp"
#include "gpt2_small_folder.hpp"

namespace {

std::vector<std::int32_t> prompt() {
    std::vector<std::int32_t> ids(16);
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = std::int32_t((i * 7919) % bench::kVocab);
    return ids;
}

void BM_Generate64(benchmark::State& state) {
    const attn::model::ModelFolder folder = attn::model::open_folder(bench::model_dir());
    attn::gen::GenerateOptions o;
    o.tokens = int(state.range(0));
    o.stop_at_eos = false;
    o.sampling.greedy = false;
    o.sampling.top_k = 40;
    std::size_t made = 0;
    for (auto _ : state) {
        ++o.sampling.seed;  // another continuation each time
        const attn::gen::Generation g =
            attn::gen::generate(*folder.model, *folder.tokenizer, prompt(), o);
        made = g.ids.size() - g.prompt;
        benchmark::DoNotOptimize(g.run->logits.data());
    }
    state.counters["generated"] = double(made);
}
BENCHMARK(BM_Generate64)
    ->Arg(64)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

/// The same 64 tokens with every step a full run of every id: what the cache saves.
void BM_GenerateNoCache(benchmark::State& state) {
    const attn::model::ModelFolder folder = attn::model::open_folder(bench::model_dir());
    for (auto _ : state) {
        std::vector<std::int32_t> ids = prompt();
        for (int t = 0; t < 64; ++t) {
            const attn::model::Run r = attn::model::run(*folder.model, ids);
            ids.push_back(attn::gen::choose(r.logits, {}, attn::Index(ids.size())).id);
        }
        benchmark::DoNotOptimize(ids.data());
    }
}
BENCHMARK(BM_GenerateNoCache)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
