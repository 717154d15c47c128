// AttnScope core — progress and cancellation for long computations. GPL-3.0-or-later.
#pragma once

namespace attn {

/// Progress sink implemented by the application (a progress dialog, a status bar…).
class Progress {
  public:
    virtual ~Progress() = default;
    /// Reports the completed fraction in [0, 1].
    virtual void update(double fraction) = 0;
    /// True when the user asked to stop; core then throws attn::Cancelled.
    virtual bool cancelled() const = 0;
};

/// Reports progress and throws attn::Cancelled when requested; a null sink is ignored.
void report(Progress* progress, double fraction);

}  // namespace attn
