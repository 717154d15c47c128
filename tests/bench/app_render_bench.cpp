// From a control change to all heatmaps repainted, driving the real main window offscreen.
// Scene controls include the computation; display controls measure drawing alone.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <memory>

#include "main_window.hpp"
#include "model/scene.hpp"
#include "views/heatmap_grid.hpp"
#include "widgets/controls_dock.hpp"

namespace {

// The whole window: hidden tabs (playground, lenses, views) do no work until they are shown,
// so there is no "heads only" variant (deleting the other tabs left the window dangling
// pointers).
std::unique_ptr<MainWindow> makeWindow(int n, int d_model, int heads) {
    auto w = std::make_unique<MainWindow>();
    attn::SceneSpec s;
    if (n != 13) {
        std::string text;
        for (int i = 0; i < n; ++i) {
            (text += "tok") += std::to_string(i % 509);
            text += ' ';
        }
        s.text = text;
    }
    s.d_model = d_model;
    s.heads = heads;
    w->scene()->resetSpec(s);
    w->resize(1280, 800);
    w->show();
    QCoreApplication::processEvents();
    return w;
}

/// Waits for the newest request to be drawn, then lets the queued widget repaints run.
void waitDrawn(MainWindow& w, quint64 rendersBefore) {
    ComputeService* c = w.computeService();
    while (c->busy() || w.heatmapGrid()->renderCount() == rendersBefore) {
        c->waitForIdle();
        QCoreApplication::processEvents();
    }
    QCoreApplication::processEvents();  // paint events of the replotted heads
}

void sceneControl(benchmark::State& state) {
    auto w = makeWindow(int(state.range(0)), int(state.range(1)), int(state.range(2)));
    waitDrawn(*w, 0);
    QDoubleSpinBox* tau = w->controlsDock()->temperatureBox();
    bool flip = false;
    for (auto _ : state) {
        const quint64 before = w->heatmapGrid()->renderCount();
        tau->setValue((flip = !flip) ? 1.1 : 1.0);
        waitDrawn(*w, before);
    }
    state.counters["heads"] = double(w->heatmapGrid()->headCount());
}

/// A temperature change as the running application sees it: the event loop runs while the
/// worker computes, so a long scene's coarse preview is drawn when it arrives. The time is to
/// the first repaint (the preview's for streamed scenes); exact_ms is to the exact one.
void firstRepaint(benchmark::State& state) {
    auto w = makeWindow(int(state.range(0)), int(state.range(1)), int(state.range(2)));
    waitDrawn(*w, 0);
    ComputeService* c = w->computeService();
    QDoubleSpinBox* tau = w->controlsDock()->temperatureBox();
    bool flip = false;
    double exact = 0, compute = 0;
    const quint64 previews = c->previewsDelivered(), reused = c->reusedBuffers();
    for (auto _ : state) {
        const quint64 before = w->heatmapGrid()->renderCount();
        const auto start = std::chrono::steady_clock::now();
        const auto since = [start] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        };
        tau->setValue((flip = !flip) ? 1.1 : 1.0);
        while (w->heatmapGrid()->renderCount() == before)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        QCoreApplication::processEvents();  // paint events of the replotted heads
        state.SetIterationTime(since());
        while (c->busy())
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        QCoreApplication::processEvents();
        exact += since() * 1e3;
        compute += c->lastComputeMs();
    }
    const double n = double(std::max<benchmark::IterationCount>(1, state.iterations()));
    state.counters["exact_ms"] = exact / n;
    state.counters["compute_ms"] = compute / n;  // the exact result's, on the worker
    state.counters["previews"] = double(c->previewsDelivered() - previews) / n;
    // Computations that wrote into a released result's buffers (no fresh pages to fault in).
    state.counters["reused"] = double(c->reusedBuffers() - reused) / n;
}

void displayControl(benchmark::State& state) {
    auto w = makeWindow(int(state.range(0)), int(state.range(1)), int(state.range(2)));
    waitDrawn(*w, 0);
    QComboBox* agg = w->controlsDock()->aggregationBox();
    int i = 0;
    for (auto _ : state) {
        const quint64 before = w->heatmapGrid()->renderCount();
        agg->setCurrentIndex(++i % 2);  // max ↔ mean: every block recomputed and redrawn
        waitDrawn(*w, before);
    }
}

}  // namespace

// The issue's two sizes, five repetitions each (medians reported), in milliseconds.
void issueSizes(benchmark::internal::Benchmark* b) {
    b->Args({512, 768, 12})
        ->Args({4096, 512, 8})
        ->ArgNames({"n", "d", "h"})
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
}

// The default scene and a small one first, then the issue's sizes; wall time.
void sceneSizes(benchmark::internal::Benchmark* b) {
    b->Args({13, 64, 4})->Args({64, 64, 4});
    issueSizes(b);
    b->UseRealTime();
}

BENCHMARK(sceneControl)->Name("sceneControl/window")->Apply(sceneSizes);
BENCHMARK(displayControl)->Apply(sceneSizes);
BENCHMARK(firstRepaint)->Apply(issueSizes)->UseManualTime();

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QTemporaryDir settingsDir;
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeBench"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
