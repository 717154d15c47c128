// AttnScope — runs a long core operation as a scheduler job behind a cancellable progress
// dialog. GPL-3.0-or-later.
#include "widgets/progress_runner.hpp"

#include <QEventLoop>
#include <QProgressDialog>
#include <QTimer>
#include <exception>

#include "model/scheduler.hpp"

namespace {

constexpr int kShowAfterMs = 300;
constexpr int kPollMs = 40;

}  // namespace

void runWithProgress(QWidget* parent, const QString& jobName, const QString& label,
                     const std::function<void(attn::Progress*)>& work) {
    std::exception_ptr failure;
    QProgressDialog dialog(label, QObject::tr("Cancel"), 0, 1000, parent);
    dialog.setWindowModality(Qt::WindowModal);
    // Also arms QProgressDialog's own force-show timer: 0 here would show it at once.
    dialog.setMinimumDuration(kShowAfterMs);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    dialog.hide();

    Scheduler& scheduler = Scheduler::instance();
    // The exception travels back as it is (callers catch Cancelled and attn::Error kinds), so
    // the job itself never fails; the wait below outlives the job, so references are safe.
    const JobHandle job = scheduler.submit(&dialog, jobName, [&](attn::Progress& progress) {
        try {
            work(&progress);
        } catch (...) {
            failure = std::current_exception();
        }
        return Scheduler::Delivery();
    });
    QEventLoop loop;
    QObject::connect(&scheduler, &Scheduler::jobFinished, &loop, [&] {
        if (job->finished()) loop.quit();
    });
    QObject::connect(&dialog, &QProgressDialog::canceled, &dialog, [&] { job->cancel(); });
    QTimer show;
    show.setSingleShot(true);
    QObject::connect(&show, &QTimer::timeout, &dialog, [&] {
        if (!job->finished()) dialog.show();
    });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &dialog, [&] {
        // QProgressDialog::cancel() (Esc, or a programmatic cancel) does not emit canceled.
        if (dialog.wasCanceled()) job->cancel();
        if (dialog.isVisible()) dialog.setValue(static_cast<int>(job->fraction() * 1000));
    });
    show.start(kShowAfterMs);
    poll.start(kPollMs);
    // User input stays on so Cancel can be clicked; callers guard against re-entry.
    if (!job->finished()) loop.exec();
    dialog.hide();
    if (failure) std::rethrow_exception(failure);
}
