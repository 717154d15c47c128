// AttnScope — runs a long core operation off the GUI thread with a cancellable progress dialog.
// GPL-3.0-or-later.
#pragma once

#include <QString>
#include <functional>

#include "attn/progress.hpp"

class QWidget;

namespace fileio {

/// Runs work(progress) on a worker thread while the GUI stays live. A QProgressDialog with a
/// Cancel button appears only when the work takes longer than ~0.3 s; Cancel makes core throw
/// attn::Cancelled. Exceptions of work are rethrown here, on the calling thread.
void runWithProgress(QWidget* parent, const QString& label,
                     const std::function<void(attn::Progress*)>& work);

}  // namespace fileio
