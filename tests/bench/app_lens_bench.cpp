// Each lens recomputes and repaints (offscreen) at its default settings: target < 100 ms.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <memory>

#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "model/scene.hpp"

namespace {

void BM_Lens(benchmark::State& state, const QString& name) {
    Scene scene;
    std::unique_ptr<QWidget> w(createLens(name, &scene, nullptr));
    w->setAttribute(Qt::WA_DontShowOnScreen);
    w->resize(1200, 800);
    w->show();
    auto* panel = qobject_cast<LensPanel*>(w.get());
    for (auto _ : state) {
        panel->refresh();
        QPixmap pm = w->grab();  // the repaint, into a pixmap like an export
        benchmark::DoNotOptimize(pm);
    }
}

}  // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    for (const QString& name : lensNames())
        benchmark::RegisterBenchmark(("lens/" + name.toStdString()).c_str(),
                                     [name](benchmark::State& s) { BM_Lens(s, name); })
            ->Unit(benchmark::kMillisecond);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
