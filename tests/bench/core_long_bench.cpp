// Benchmark: long sequences in bounded memory — the streamed pass of the default scene (4 heads,
// d_model 64) at 8k and 32k tokens (and with the RBF score at 8k), a 512 × 512 zoom region at full
// resolution from Q and K, and the refusal of an over-budget request. Run by hand, never by ctest.
#include <benchmark/benchmark.h>

#include <string>

#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"

namespace {

attn::SceneSpec longScene(int n) {
    attn::SceneSpec spec;
    std::string text;
    for (int i = 0; i < n; ++i) {
        text += 'w';
        text += std::to_string(i % 5003);
        text += ' ';
    }
    spec.text = std::move(text);
    return spec;
}

/// The streamed pass of spec's scene of state.range(0) tokens, per call.
void streamed(benchmark::State& state, const attn::SceneSpec& spec) {
    for (auto _ : state) {
        attn::SceneResult r = attn::compute_scene(spec, nullptr, attn::Storage::Streamed);
        benchmark::DoNotOptimize(r.stats.data());
    }
    state.counters["Gcells/s"] =
        benchmark::Counter(4.0 * double(state.range(0)) * double(state.range(0)) / 1e9,
                           benchmark::Counter::kIsIterationInvariantRate);
}

void BM_StreamedScene(benchmark::State& state) {
    streamed(state, longScene(int(state.range(0))));
}
BENCHMARK(BM_StreamedScene)
    ->Arg(8192)
    ->Arg(32768)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The same with the RBF score: its squared distances Σ (q − k)² go through the dot kernel term
// by term (a subtraction and a fused multiply-add per term, against the dot product's one).
void BM_StreamedRbfScene(benchmark::State& state) {
    attn::SceneSpec spec = longScene(int(state.range(0)));
    spec.score = attn::ScoreKind::Rbf;
    streamed(state, spec);
}
BENCHMARK(BM_StreamedRbfScene)
    ->Arg(8192)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The GUI's coarse preview: every 32nd query of a 32k-token scene (what is drawn first).
void BM_PreviewScene32k(benchmark::State& state) {
    const attn::SceneSpec spec = longScene(32768);
    for (auto _ : state) {
        attn::SceneResult r = attn::compute_scene(spec, nullptr, attn::Storage::Streamed, nullptr,
                                                  attn::kOverviewCells, 32);
        benchmark::DoNotOptimize(r.stats.data());
    }
}
BENCHMARK(BM_PreviewScene32k)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// The heatmap's zoom: a 512 × 512 region of a 32k-token head at full resolution (one pixel per
// cell), computed from Q, K and the stored row normalisers.
void BM_ZoomRegion512(benchmark::State& state) {
    const attn::SceneResult r =
        attn::compute_scene(longScene(32768), nullptr, attn::Storage::Streamed);
    attn::Index at = 1000;
    for (auto _ : state) {
        attn::AggregatedGrid g =
            r.weights_blocks(1, at, 512, at + 3000, 512, 512, 512, attn::Aggregation::Max);
        benchmark::DoNotOptimize(g.values.data());
        at = (at + 4099) % 28000;  // another region each time: nothing cached
    }
}
BENCHMARK(BM_ZoomRegion512)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(50);

// The overview at a heatmap's size, reduced from the stored block sums.
void BM_OverviewFromSums(benchmark::State& state) {
    const attn::SceneResult r =
        attn::compute_scene(longScene(32768), nullptr, attn::Storage::Streamed);
    for (auto _ : state) {
        attn::AggregatedGrid g =
            r.weights_blocks(0, 0, 32768, 0, 32768, 600, 600, attn::Aggregation::Mean);
        benchmark::DoNotOptimize(g.values.data());
    }
}
BENCHMARK(BM_OverviewFromSums)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);

void BM_RefuseAllStages30k(benchmark::State& state) {
    const attn::SceneSpec spec = longScene(30000);
    for (auto _ : state) {
        try {
            attn::compute_scene(spec, nullptr, attn::Storage::Stages);
        } catch (const attn::ResourceError& e) {
            benchmark::DoNotOptimize(e.what());
        }
    }
}
BENCHMARK(BM_RefuseAllStages30k)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
