// AttnScope — runs a long core operation off the GUI thread with a cancellable progress dialog.
// GPL-3.0-or-later.
#include "io/progress_runner.hpp"

#include <QEventLoop>
#include <QFutureWatcher>
#include <QProgressDialog>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <exception>

namespace fileio {
namespace {

/// Written by the worker, read by the GUI's polling timer: no signals cross threads.
class AtomicProgress : public attn::Progress {
  public:
    void update(double fraction) override { fraction_.store(fraction); }
    bool cancelled() const override { return cancelled_.load(); }
    double fraction() const { return fraction_.load(); }
    void cancel() { cancelled_.store(true); }

  private:
    std::atomic<double> fraction_{0.0};
    std::atomic<bool> cancelled_{false};
};

constexpr int kShowAfterMs = 300;
constexpr int kPollMs = 40;

}  // namespace

void runWithProgress(QWidget* parent, const QString& label,
                     const std::function<void(attn::Progress*)>& work) {
    AtomicProgress progress;
    std::exception_ptr failure;
    QFutureWatcher<void> watcher;
    QEventLoop loop;
    QObject::connect(&watcher, &QFutureWatcher<void>::finished, &loop, &QEventLoop::quit);
    watcher.setFuture(QtConcurrent::run([&] {
        try {
            work(&progress);
        } catch (...) {
            failure = std::current_exception();
        }
    }));

    QProgressDialog dialog(label, QObject::tr("Cancel"), 0, 1000, parent);
    dialog.setWindowModality(Qt::WindowModal);
    // Also arms QProgressDialog's own force-show timer: 0 here would show it at once.
    dialog.setMinimumDuration(kShowAfterMs);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    dialog.hide();
    QObject::connect(&dialog, &QProgressDialog::canceled, &dialog, [&] { progress.cancel(); });
    QTimer show;
    show.setSingleShot(true);
    QObject::connect(&show, &QTimer::timeout, &dialog, [&] {
        if (watcher.isRunning()) dialog.show();
    });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &dialog, [&] {
        // QProgressDialog::cancel() (Esc, or a programmatic cancel) does not emit canceled.
        if (dialog.wasCanceled()) progress.cancel();
        if (dialog.isVisible()) dialog.setValue(static_cast<int>(progress.fraction() * 1000));
    });
    show.start(kShowAfterMs);
    poll.start(kPollMs);
    // User input stays on so Cancel can be clicked; callers guard against re-entry.
    if (!watcher.isFinished()) loop.exec();
    watcher.waitForFinished();
    dialog.hide();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace fileio
