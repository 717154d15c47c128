// Benchmark: multi-head self-attention forward with projections (float32, d_model 768, 12 heads),
// against Eigen's own SGEMM as the ceiling. Run by hand, never by ctest.
//
// BM_MultiHeadSelfAttention computes what PyTorch's nn.MultiheadAttention returns with
// need_weights=True, average_attn_weights=False (scripts/bench_torch_mha.py): the layer output and
// every head's n × n weights, fresh each call. BM_MultiHeadSelfAttentionStages also keeps every
// head's raw n × n scores, as a scene of up to kStageCellLimit cells does.
#include <benchmark/benchmark.h>

#include <ctime>
#include <thread>
#include <vector>

#include "attn/attention/multihead.hpp"
#include "attn/util/random.hpp"

namespace {

constexpr attn::Index kModel = 768, kHeads = 12;

// CPU time of the whole process (every thread), in ms: on a shared machine it tells the work
// done apart from the time spent waiting for a core.
double process_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

// Projections Q, K, V, O: 4 · 2·n·d²; scores and weights·V: 2 · 2·n²·d. Softmax not counted.
double mha_flops(double n) {
    const double d = kModel;
    return 8 * n * d * d + 4 * n * n * d;
}

// Scaled dot product, no mask, τ = 1; with raw kept (stages) or PyTorch's outputs only.
attn::AttentionParams mha_params(bool stages) {
    attn::AttentionParams params;
    params.keep_stages = stages;
    params.keep_output = true;
    return params;
}

void run_fresh(benchmark::State& state, bool stages) {
    const attn::Index n = state.range(0);
    const attn::MultiHeadConfig config{kModel, kHeads, 0};
    const attn::MultiHeadWeights w =
        attn::MultiHeadWeights::xavier(config, attn::ScoreKind::Dot, 1);
    const attn::Matrix X = attn::Rng(2).normal_matrix(n, kModel);
    const attn::AttentionParams params = mha_params(stages);
    const double cpu0 = process_cpu_ms();
    for (auto _ : state) {
        attn::MultiHeadResult r = attn::multi_head(X, X, w, config, params);
        benchmark::DoNotOptimize(r.output.data());
        benchmark::ClobberMemory();
    }
    state.counters["cpu_ms_all_threads"] = (process_cpu_ms() - cpu0) / double(state.iterations());
    state.counters["GFLOP/s"] = benchmark::Counter(mha_flops(double(n)) / 1e9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

void BM_MultiHeadSelfAttention(benchmark::State& state) {
    run_fresh(state, false);
}
BENCHMARK(BM_MultiHeadSelfAttention)
    ->Arg(128)
    ->Arg(512)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_MultiHeadSelfAttentionStages(benchmark::State& state) {
    run_fresh(state, true);
}
BENCHMARK(BM_MultiHeadSelfAttentionStages)
    ->Arg(128)
    ->Arg(512)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same computation into a reused result: no allocation (nor page faults) after the first.
void BM_MultiHeadSelfAttentionReused(benchmark::State& state) {
    const attn::Index n = state.range(0);
    const attn::MultiHeadConfig config{kModel, kHeads, 0};
    const attn::MultiHeadWeights w =
        attn::MultiHeadWeights::xavier(config, attn::ScoreKind::Dot, 1);
    const attn::Matrix X = attn::Rng(2).normal_matrix(n, kModel);
    const attn::AttentionParams params = mha_params(false);
    attn::MultiHeadResult r;
    attn::multi_head_into(X, X, w, config, params, r);  // first call allocates
    const double cpu0 = process_cpu_ms();
    for (auto _ : state) {
        attn::multi_head_into(X, X, w, config, params, r);
        benchmark::DoNotOptimize(r.output.data());
        benchmark::ClobberMemory();
    }
    state.counters["cpu_ms_all_threads"] = (process_cpu_ms() - cpu0) / double(state.iterations());
    state.counters["GFLOP/s"] = benchmark::Counter(mha_flops(double(n)) / 1e9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MultiHeadSelfAttentionReused)
    ->Arg(128)
    ->Arg(512)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Eigen's SGEMM at 1024³: one thread (Eigen without OpenMP), and two threads by rows.
void BM_EigenSgemm1024(benchmark::State& state) {
    const int threads = int(state.range(0));
    const attn::Index n = 1024;
    attn::Rng rng(3);
    const attn::Matrix A = rng.normal_matrix(n, n), B = rng.normal_matrix(n, n);
    attn::Matrix C(n, n);
    for (auto _ : state) {
        std::vector<std::thread> pool;
        for (int t = 1; t < threads; ++t)
            pool.emplace_back([&, t] {
                const attn::Index b = n * t / threads, e = n * (t + 1) / threads;
                C.middleRows(b, e - b).noalias() = A.middleRows(b, e - b) * B;
            });
        const attn::Index e0 = n / threads;
        C.topRows(e0).noalias() = A.topRows(e0) * B;
        for (auto& p : pool)
            p.join();
        benchmark::DoNotOptimize(C.data());
        benchmark::ClobberMemory();
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * n * n * n / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_EigenSgemm1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
