// AttnScope — runs a long core operation as a scheduler job behind a cancellable progress
// dialog. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <functional>

#include "attn/util/progress.hpp"

class QWidget;

/// Runs work(progress) as the scheduler's job `job` (e.g. "load file", "export numbers") while
/// the GUI stays live, and returns when it is over. A QProgressDialog with a Cancel button appears
/// only when the work takes longer than ~0.3 s; Cancel makes core throw attn::Cancelled. Exceptions
/// of work are rethrown here, on the calling thread. File loading and the Model view's numbers
/// export use it.
void runWithProgress(QWidget* parent, const QString& job, const QString& label,
                     const std::function<void(attn::Progress*)>& work);
