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

/// One part of a longer task: its fraction f reported to `outer` as from + f · (to − from), so
/// the outer progress never runs backwards; cancellation is the outer one's (null: none).
class PartProgress : public Progress {
  public:
    PartProgress(Progress* outer, double from, double to) : outer_(outer), from_(from), to_(to) {}
    void update(double f) override {
        if (outer_) outer_->update(from_ + f * (to_ - from_));
    }
    bool cancelled() const override { return outer_ && outer_->cancelled(); }

  private:
    Progress* outer_;
    double from_, to_;
};

}  // namespace attn
