// AttnScope — opening a file or a model folder behind a progress dialog, with the one wording of
// what went wrong. GPL-3.0-or-later.
#pragma once

#include <QStatusBar>
#include <QString>
#include <exception>
#include <functional>
#include <new>

#include "attn/util/error.hpp"
#include "attn/util/progress.hpp"
#include "io/fileio_tr.hpp"
#include "model/error_text.hpp"
#include "widgets/progress_runner.hpp"

namespace fileio {

/// Where an open that did not happen is reported: a cancel quietly in the status bar, a failure
/// through `fail` (a message box unless quiet); both end up in *lastError.
struct OpenReport {
    QStatusBar* status;
    QString* lastError;
    std::function<void(const QString&)> fail;
};

/// Runs `load` (which reads and checks, and never touches the scene) as the scheduler's job `job`
/// behind a cancellable progress dialog and returns whether it finished. `subject` names what is
/// opened in the messages ("a.npy", "the model gpt2"). Cancel, lack of memory and any other
/// exception become one sentence, a failure's ending with the promise that the current scene is
/// unchanged: the file and the model controller both say it this way, so it is written once.
inline bool openGuarded(QWidget* parent, const QString& job, const QString& label,
                        const QString& subject, const std::function<void(attn::Progress*)>& load,
                        const OpenReport& report) {
    QString failure;
    try {
        runWithProgress(parent, job, label, load);
        return true;
    } catch (const attn::Cancelled&) {
        *report.lastError = tr("Opening %1 was cancelled.").arg(subject);
        report.status->showMessage(*report.lastError, 5000);
        return false;
    } catch (const std::bad_alloc&) {
        failure = tr("Cannot open %1: there is not enough memory to load it.\n\n"
                     "The current scene is unchanged.")
                      .arg(subject);
    } catch (const std::exception& e) {
        failure = tr("Cannot open %1:\n\n%2\n\nThe current scene is unchanged.")
                      .arg(subject, errorText(e, subject));
    }
    report.fail(failure);
    return false;
}

}  // namespace fileio
