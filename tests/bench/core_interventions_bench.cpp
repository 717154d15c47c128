// AttnScope — interventions at GPT-2 small's size (random weights of the real shapes, 16
// tokens). Targets (issue 25, medians): the full layers × heads patching map (144 patched runs)
// ≤ 5 s; one ablation toggle → a new run, the shown layer and the top 10 ≤ 150 ms; the logit
// lens ≤ 100 ms.
//   build/portable/tests/bench/core_interventions_bench [--benchmark_filter=…]
#include <benchmark/benchmark.h>

#include "attn/interventions/lens.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/models/gpt2/model.hpp"
#include "attn/scene/model_scene.hpp"
#include "gpt2_small_folder.hpp"

namespace {

const std::string kText = "the cat sat on a";  // 16 bytes: 16 tokens of the byte tokenizer

std::shared_ptr<const attn::model::ModelFolder> folder() {
    static const auto f = std::make_shared<const attn::model::ModelFolder>(
        attn::gpt2::open_folder(bench::model_dir()));
    return f;
}

/// The heads map of `attnscope patch` (resid off): 144 runs from the patched layer on.
void BM_PatchHeads(benchmark::State& state) {
    const auto f = folder();
    attn::interv::PatchSpec spec;
    spec.clean = f->tokenizer->encode(kText);
    spec.corrupt = f->tokenizer->encode("the dog sat on a");
    spec.answer = 116;
    spec.wrong = 99;
    spec.resid = false;
    for (auto _ : state)
        benchmark::DoNotOptimize(attn::interv::patch(*f->model, spec).heads.data());
    state.counters["runs"] = 144;
}
BENCHMARK(BM_PatchHeads)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

/// One click on a head: a scene whose interventions changed (a different head each time, so
/// no run is found in the cache) → the run, the shown layer's scene and the top 10.
void BM_AblationToggle(benchmark::State& state) {
    attn::SceneSpec spec;
    spec.model = folder();
    spec.text = kText;
    spec.mask = attn::model::own_mask(spec.model->model->info());
    int i = 0;
    for (auto _ : state) {
        spec.interventions.ablated = {{attn::model::kSingleStack, i % 12, (i / 12) % 12}};
        ++i;
        benchmark::DoNotOptimize(attn::model::model_scene(spec).next_tokens.data());
    }
}
BENCHMARK(BM_AblationToggle)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

/// The lens [13, 50257] at the last position of a run already made.
void BM_LogitLens(benchmark::State& state) {
    const auto f = folder();
    const attn::model::Run run = attn::model::run(*f->model, f->tokenizer->encode(kText));
    for (auto _ : state)
        benchmark::DoNotOptimize(attn::interv::lens_logits(*f->model, run).data());
}
BENCHMARK(BM_LogitLens)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
