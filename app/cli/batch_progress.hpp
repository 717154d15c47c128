// AttnScope — `attnscope batch`'s progress: a line on a terminal's stderr, JSON lines for
// programs (--progress json), or nothing. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <chrono>
#include <cstdint>

namespace cli::batch {

/// Reports examples done of a total on stderr.
class ProgressLine {
  public:
    enum class Mode { Quiet, Terminal, Json };
    /// TOTAL lines of which DONE are done already, SKIPPED of them skipped (a resumed run).
    ProgressLine(Mode mode, std::int64_t total, std::int64_t done, std::int64_t skipped);
    /// One more example done (SKIPPED: it was a skipped line).
    void step(bool skipped);
    /// The run is complete: OUTPUT written.
    void finish(const QString& output);

  private:
    Mode mode_;
    std::int64_t total_, done_, skipped_, startDone_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace cli::batch
