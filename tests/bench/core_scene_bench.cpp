// Benchmark: what a scene control costs in core, without drawing: a temperature change
// recomputed from the shown result (attn::recompute_scene, as the application's compute
// service does), at the sizes of issue 14's repaint targets. Run by hand (README,
// "Benchmarks"); ctest runs its smallest case once.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "attn/scene/scene.hpp"

namespace {

attn::SceneSpec scene(attn::Index n, attn::Index d_model, attn::Index heads) {
    attn::SceneSpec s;
    std::string text;
    for (attn::Index i = 0; i < n; ++i)
        (text += "tok") += std::to_string(i % 509) + ' ';
    s.text = text;
    s.d_model = d_model;
    s.heads = heads;
    return s;
}

// A temperature change, flipping 1.0 ↔ 1.1, each recomputed from the previous result as the
// application's compute service does: the storage it gives the scene, its cached seeded
// weights, no stored outputs, and the buffers of the result before recycled.
void BM_TemperatureRestart(benchmark::State& state) {
    attn::SceneSpec spec = scene(state.range(0), state.range(1), state.range(2));
    spec.weights = std::make_shared<const attn::MultiHeadWeights>(attn::seeded_weights(spec));
    const attn::Storage storage = attn::storage_for(spec);
    constexpr bool outputs = false;
    attn::SceneResult shown =
        attn::compute_scene(spec, nullptr, storage, nullptr, attn::kOverviewCells, 1, outputs);
    attn::SceneResult spare;
    bool flip = false;
    for (auto _ : state) {
        attn::SceneSpec next = spec;
        next.temperature = (flip = !flip) ? 1.1f : 1.f;
        attn::SceneResult r = attn::recompute_scene(shown, spec, next, nullptr, storage, &spare,
                                                    attn::kOverviewCells, 1, outputs);
        benchmark::DoNotOptimize(r.heads.data());
        spare = std::move(shown);
        shown = std::move(r);
        spec = next;
    }
    state.counters["storage"] = double(static_cast<int>(storage));
}
BENCHMARK(BM_TemperatureRestart)
    ->Args({13, 64, 4})
    ->Args({512, 768, 12})
    ->Args({4096, 512, 8})
    ->ArgNames({"n", "d", "h"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
