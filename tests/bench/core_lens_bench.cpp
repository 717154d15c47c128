// Core lens computations at the panels' default settings.
#include <benchmark/benchmark.h>

#include "attn/lenses/entropy.hpp"
#include "attn/lenses/favor.hpp"
#include "attn/lenses/rank_collapse.hpp"
#include "attn/lenses/scaling.hpp"
#include "attn/lenses/tiled.hpp"
#include "attn/util/random.hpp"

namespace {

using namespace attn;
using namespace attn::lenses;

void BM_ScalingSweep(benchmark::State& state) {
    ScalingConfig c;
    for (auto _ : state)
        benchmark::DoNotOptimize(scaling_sweep(c));
}
BENCHMARK(BM_ScalingSweep)->Unit(benchmark::kMillisecond);

void BM_DotSamples(benchmark::State& state) {
    for (auto _ : state)
        benchmark::DoNotOptimize(sample_dot_products(64, 20000, 1));
}
BENCHMARK(BM_DotSamples)->Unit(benchmark::kMillisecond);

void BM_SceneEntropy(benchmark::State& state) {
    SceneSpec spec;
    const std::vector<Index> ns = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    for (auto _ : state)
        benchmark::DoNotOptimize(scene_entropy(spec, ns));
}
BENCHMARK(BM_SceneEntropy)->Unit(benchmark::kMillisecond);

void BM_RankCollapse(benchmark::State& state) {
    RankCollapseConfig c;
    c.depth = 16;
    for (auto _ : state)
        benchmark::DoNotOptimize(rank_collapse(c));
}
BENCHMARK(BM_RankCollapse)->Unit(benchmark::kMillisecond);

void BM_Tiled(benchmark::State& state) {
    const Index n = state.range(0);
    Rng rng(1);
    const MatrixD Q = rng.normal_matrix(n, 64).cast<double>(),
                  K = rng.normal_matrix(n, 64).cast<double>(),
                  V = rng.normal_matrix(n, 64).cast<double>();
    TiledConfig c;
    c.block_q = c.block_k = 64;
    for (auto _ : state)
        benchmark::DoNotOptimize(tiled_attention(Q, K, V, nullptr, true, c));
}
BENCHMARK(BM_Tiled)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_Favor(benchmark::State& state) {
    Rng rng(1);
    const MatrixD Q = rng.normal_matrix(64, 16).cast<double>(),
                  K = rng.normal_matrix(64, 16).cast<double>(),
                  V = rng.normal_matrix(64, 16).cast<double>();
    for (auto _ : state)
        benchmark::DoNotOptimize(favor_attention(Q, K, V, state.range(0), true, 3));
}
BENCHMARK(BM_Favor)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
