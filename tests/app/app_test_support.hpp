// AttnScope — helpers shared by the app tests (not a test itself). GPL-3.0-or-later.
#pragma once

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <vector>

#include "attn/scene/scene.hpp"
#include "main_window.hpp"
#include "model/compute_service.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"

namespace test_support {

/// Triggers ACTION, whose file dialog is answered as a user answers it: in folder DIR, PATH's
/// name typed, then a click on BUTTON (not Enter, which the name's completer list may take),
/// until it closes. Returns how many times the dialog was answered (0: it never showed).
inline int answerFileDialog(QAction* action, const QString& dir, const QString& path,
                            QDialogButtonBox::StandardButton button) {
    int attempts = 0;
    QTimer answer;
    answer.setInterval(50);
    QObject::connect(&answer, &QTimer::timeout, [&] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog || !dialog->isVisible()) return;
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        auto* buttons = dialog->findChild<QDialogButtonBox*>();
        QPushButton* accept = buttons ? buttons->button(button) : nullptr;
        if (!name || !accept) return;
        ++attempts;
        dialog->setDirectory(dir);
        if (name->text() != QFileInfo(path).fileName()) {
            name->selectAll();
            QTest::keyClicks(name, QFileInfo(path).fileName());
        }
        if (accept->isEnabled()) QTest::mouseClick(accept, Qt::LeftButton);
    });
    answer.start();
    action->trigger();
    return attempts;
}

/// Clicks tab INDEX of BAR, as a user does.
inline void clickTab(QTabBar* bar, int index) {
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
}

/// The index of the page of TABS whose view key is KEY (−1: none).
inline int pageOf(QTabWidget* tabs, const QString& key) {
    for (int i = 0; i < tabs->count(); ++i)
        if (MainWindow::viewKey(tabs->widget(i)) == key) return i;
    return -1;
}

/// Distinct colours in a coarse sample (every 3rd pixel): a blank or single-colour window has
/// very few, a drawn plot many.
inline int distinctColours(const QImage& image) {
    QSet<QRgb> seen;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            seen.insert(image.pixel(x, y));
    return int(seen.size());
}

/// With ATTN_SCREENSHOT_DIR set, saves IMAGE there as FILE_NAME: an opaque PNG at zlib level 9
/// (screenshots are written once and read many times). Without it, does nothing.
inline void saveScreenshot(const QImage& image, const QString& fileName) {
    const QString dir = qEnvironmentVariable("ATTN_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QImageWriter writer(dir + QLatin1Char('/') + fileName);
    writer.setQuality(0);
    QVERIFY2(writer.write(image.convertToFormat(QImage::Format_RGB888)), qPrintable(fileName));
}

/// A real fixture under tests/data/real. A missing or unreadable one fails the test program at
/// once, naming its path (a test must never wait on a file that is not there).
inline QString fixture(const char* name) {
    const QString path = QStringLiteral(ATTN_FIXTURES_DIR "/") + QString::fromLatin1(name);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("fixture missing or unreadable: %s (%s)", qPrintable(path),
               qPrintable(file.errorString()));
    return path;
}

/// Isolates QSettings in a temporary directory so tests never read or write the user's, and
/// gives this process an application name, and so an autosave folder, of its own: a window a
/// test destroys without closing leaves its autosave behind, which a window of another test
/// program running beside it would otherwise offer to restore (a modal question nobody
/// answers). The folder goes when the application does.
inline void isolateSettings() {
    static QTemporaryDir dir;
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTests"));
    QCoreApplication::setApplicationName(
        QStringLiteral("AttnScopeTests-%1").arg(QCoreApplication::applicationPid()));
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
    QSettings().clear();
    static const bool cleanup = [] {
        qAddPostRoutine([] {
            QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                .removeRecursively();
        });
        return true;
    }();
    (void)cleanup;
}

/// Waits until the newest request has been delivered (no time limit beyond ctest's).
inline void settle(ComputeService* service) {
    while (service->busy()) {
        service->waitForIdle();
        QCoreApplication::processEvents();
    }
    QCoreApplication::processEvents();
}

/// Counts the events delivered to any object of the application while it is installed.
class EventCounter : public QObject {
  public:
    EventCounter() { QCoreApplication::instance()->installEventFilter(this); }
    ~EventCounter() override { QCoreApplication::instance()->removeEventFilter(this); }
    int count = 0;

  protected:
    bool eventFilter(QObject*, QEvent*) override {
        ++count;
        return false;
    }
};

/// Waits until the application has nothing left to do, on the scheduler's signals and the event
/// queue, never a clock: the compute service's request (service may be null) and every scheduler
/// job delivered, then the events they posted run (deferred refreshes that start further jobs).
/// Passes repeat until one finishes no job and its event processing delivers no event at all.
inline void settleAll(ComputeService* service) {
    EventCounter events;
    int finished = 0;
    const QMetaObject::Connection counting = QObject::connect(
        &Scheduler::instance(), &Scheduler::jobFinished, [&finished] { ++finished; });
    for (int pass = 0; pass < 10000; ++pass) {
        const int before = finished;
        if (service) settle(service);
        Scheduler::instance().waitForIdle();
        events.count = 0;
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        if (finished == before && events.count == 0) {
            QObject::disconnect(counting);
            return;
        }
    }
    QObject::disconnect(counting);
    QFAIL("the application never settles: jobs or events keep coming after 10000 passes");
}

/// The weights drawn by a head, as (rows × cols) doubles; masked cells as NaN. A head scrolled
/// out of view draws when it is painted: it is brought up to date first, as a paint would.
inline std::vector<double> drawn(HeadHeatmap* head) {
    head->ensureRefreshed();
    QCPColorMapData* d = head->colorMap()->data();
    std::vector<double> out;
    for (int r = 0; r < d->valueSize(); ++r)
        for (int c = 0; c < d->keySize(); ++c)
            out.push_back(d->alpha(c, r) == 0 ? std::nan("") : d->cell(c, r));
    return out;
}

/// Every head's drawn values concatenated.
inline std::vector<double> drawnAll(HeatmapGrid* grid) {
    std::vector<double> all;
    for (int h = 0; h < grid->headCount(); ++h) {
        const auto v = drawn(grid->head(h));
        all.insert(all.end(), v.begin(), v.end());
    }
    return all;
}

inline bool sameValues(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) != std::isnan(b[i])) return false;
        if (!std::isnan(a[i]) && a[i] != b[i]) return false;
    }
    return true;
}

/// Compares what the grid draws with core's weights for spec (no aggregation expected):
/// every value within 1e-6 (a model's run: 3e-5, float32's rounding through its layers, since the
/// app may reuse a cached prefix and sum in another order), masked cells transparent. Returns an
/// empty string on success.
inline QString compareWithCore(HeatmapGrid* grid, const attn::SceneSpec& spec) {
    const attn::SceneResult expected = attn::compute_scene(spec);
    const double tolerance = spec.is_model() ? 3e-5 : 1e-6;
    if (grid->headCount() != int(expected.heads.size()))
        return QStringLiteral("head count %1 ≠ %2")
            .arg(grid->headCount())
            .arg(expected.heads.size());
    for (int h = 0; h < grid->headCount(); ++h) {
        const attn::HeadResult& e = expected.heads[std::size_t(h)];
        QCPColorMapData* d = grid->head(h)->colorMap()->data();
        if (d->keySize() != e.weights.cols() || d->valueSize() != e.weights.rows())
            return QStringLiteral("head %1: drawn %2×%3, expected %4×%5")
                .arg(h)
                .arg(d->valueSize())
                .arg(d->keySize())
                .arg(e.weights.rows())
                .arg(e.weights.cols());
        const attn::Matrix em = e.masked_matrix();
        for (int q = 0; q < e.weights.rows(); ++q)
            for (int k = 0; k < e.weights.cols(); ++k) {
                const bool masked = std::isinf(em(q, k)) && em(q, k) < 0;
                if (masked != (d->alpha(k, q) == 0))
                    return QStringLiteral("head %1 (%2,%3): mask differs").arg(h).arg(q).arg(k);
                if (!masked && std::abs(d->cell(k, q) - e.weights(q, k)) > tolerance)
                    return QStringLiteral("head %1 (%2,%3): drawn %4, core %5")
                        .arg(h)
                        .arg(q)
                        .arg(k)
                        .arg(d->cell(k, q))
                        .arg(e.weights(q, k));
            }
    }
    return {};
}

/// A shown main window at 1280×800 with the default scene computed.
inline void showWindow(MainWindow& w) {
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w.computeService());
}

}  // namespace test_support
