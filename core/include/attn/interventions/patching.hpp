// AttnScope core — activation patching: how much of the clean run's answer a corrupted run
// gets back when one head's output, or the residual stream at one place, is the clean run's.
// GPL-3.0-or-later. The method and its formula are in docs/interventions.md.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/models/run.hpp"

namespace attn::interv {

/// What to patch: two prompts of equal token length and the two answers compared.
struct PatchSpec {
    std::vector<std::int32_t> clean, corrupt;
    std::int32_t answer = 0, wrong = 0;
    model::RunControls controls;  ///< applied to every run (the interventions too)
    bool heads = true;            ///< compute the layers × heads map
    bool resid = true;            ///< compute the (layers + 1) × positions map
};

/// |clean − corrupted| below this fraction of the logits' spread makes every restored fraction
/// unstable: a patched run that moves the difference by a few hundredths of a logit, as any
/// small change may, then reads as a large fraction (patching's precondition, shown as a
/// warning beside the maps and written into their exports).
inline constexpr double kUnstableSpanFraction = 0.2;

/// True when |CLEAN_DIFF − CORRUPT_DIFF| < kUnstableSpanFraction × LOGIT_SCALE (or is not finite).
bool unstable_span(double clean_diff, double corrupt_diff, double logit_scale);

/// Fractions of the logit difference restored: (patched − corrupt) / (clean − corrupt).
struct PatchResult {
    double clean_diff = 0, corrupt_diff = 0;  ///< answer − wrong at the last position
    double logit_scale = 0;  ///< standard deviation of the clean run's logits there
    Matrix heads;  ///< [layers, heads]: that head's z is the clean run's at every position
    Matrix resid;  ///< [layers + 1, n]: row l < L the stream entering layer l, row L leaving
                   ///< the last layer, the clean run's at that one position
    /// unstable_span of this result's differences and scale.
    bool unstable() const { return unstable_span(clean_diff, corrupt_diff, logit_scale); }
};

/// The logit difference ANSWER − WRONG of RUN's residual stream leaving the last layer at its
/// logits position (through the final norm frozen there, as the output head computes it).
double logit_diff(const model::Model& model, const model::Run& run, std::int32_t answer,
                  std::int32_t wrong);

/// Hooks that put SOURCE's z of one head (rows [0, n)) in place of the run's own.
class HeadPatch : public model::Hooks {
  public:
    HeadPatch(int layer, int head, const Matrix& source) : l_(layer), h_(head), src_(source) {}
    void z(int layer, int head, Index first, Matrix& z) override;

  private:
    int l_, h_;
    const Matrix& src_;
};

/// Hooks that put SOURCE's residual stream rows POSITIONS in place of the run's own, entering
/// LAYER (LAYER = L: leaving the last layer). Empty POSITIONS: every position.
class ResidPatch : public model::Hooks {
  public:
    ResidPatch(int layer, std::vector<Index> positions, const Matrix& source, int layers)
        : l_(layer), positions_(std::move(positions)), src_(source), layers_(layers) {}
    void resid_pre(int layer, Index first, Matrix& x) override;
    void resid_final(Index first, Matrix& x) override;

  private:
    void put(Index first, Matrix& x) const;
    int l_;
    std::vector<Index> positions_;
    const Matrix& src_;
    int layers_;
};

/// Patches every head and every (layer, position) of SPEC's corrupted run with the clean run's,
/// each patched run reusing the corrupted run's layers before the patch (model::run_from).
/// PROGRESS is told after each patched run and may cancel (attn::Cancelled). Throws
/// ArgumentError for prompts of unequal length (naming both), answers outside the vocabulary,
/// and answers whose difference is the same in both runs (nothing to restore).
PatchResult patch(const model::Model& model, const PatchSpec& spec, Progress* progress = nullptr);

}  // namespace attn::interv
