// Benchmark of the playground: one drag step (move a key, recompute, refresh every view) followed
// by an immediate replot of every plot, offscreen, with 64 keys and 8 queries. Reports the median
// milliseconds per step (the target: ≤ 8 ms).
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QUndoStack>
#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>

#include "attn/playground/playground.hpp"
#include "model/playground_model.hpp"
#include "playground/playground_widget.hpp"

namespace {

/// CPU time of this thread in seconds: on a loaded machine wall time mostly measures the other
/// processes, so both are reported.
double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

attn::PlaygroundState bigState() {
    std::mt19937 gen(2024);
    std::normal_distribution<double> nd(0, 1.5);
    attn::PlaygroundState s;
    for (int i = 0; i < 8; ++i)
        s.queries.emplace_back(nd(gen), nd(gen));
    for (int j = 0; j < 64; ++j) {
        s.keys.emplace_back(nd(gen), nd(gen));
        s.values.emplace_back(nd(gen), nd(gen));
    }
    return s;
}

void dragStep(benchmark::State& st, bool overlay) {
    QUndoStack undo;
    PlaygroundWidget w(&undo);
    w.resize(1400, 900);
    w.show();
    QCoreApplication::processEvents();
    attn::PlaygroundState s = bigState();
    s.overlay = overlay;
    s.hard_sample = true;
    w.setState(s);
    QCoreApplication::processEvents();
    w.replotNow();
    PlaygroundModel* model = w.model();
    model->beginLive();
    std::vector<double> ms, cpu;
    int k = 0;
    for (auto _ : st) {
        // A drag moves one key a little each frame, along a small circle.
        attn::PlaygroundState next = s;
        const double t = 0.05 * k;
        next.keys[static_cast<std::size_t>(k % 64)] +=
            Eigen::Vector2d(0.3 * std::cos(t), 0.3 * std::sin(t));
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = threadCpuSeconds();
        model->updateLive(next);
        w.replotNow();
        const double c1 = threadCpuSeconds();
        const auto t1 = std::chrono::steady_clock::now();
        cpu.push_back((c1 - c0) * 1e3);
        const double sec = std::chrono::duration<double>(t1 - t0).count();
        st.SetIterationTime(sec);
        ms.push_back(sec * 1e3);
        ++k;
    }
    model->commitLive(QStringLiteral("bench"));
    st.counters["median_ms"] = median(ms);
    st.counters["median_cpu_ms"] = median(cpu);
}

void BM_PlaygroundDragRepaint(benchmark::State& st) {
    dragStep(st, false);
}
void BM_PlaygroundDragRepaintOverlay(benchmark::State& st) {
    dragStep(st, true);
}

}  // namespace

BENCHMARK(BM_PlaygroundDragRepaint)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(300);
BENCHMARK(BM_PlaygroundDragRepaintOverlay)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(300);

int main(int argc, char** argv) {
    // Offscreen by default: the benchmark must run on machines without a display.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    benchmark::Initialize(&argc, argv);
    QApplication app(argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
