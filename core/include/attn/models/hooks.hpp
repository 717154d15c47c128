// AttnScope core — hook points of a forward pass, and the interventions made of them.
// GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/models/site.hpp"
#include "attn/util/types.hpp"

namespace attn::model {

/// How an ablated head's output z is replaced.
enum class AblationMode {
    Zero,  ///< z = 0 (the head's W_O bias share stays: it is the layer's)
    Mean,  ///< every position's z = the mean over the sequence's positions of z
};

/// The interventions a run applies: part of its controls (sessions save them, undo restores
/// them, a change restarts the run). A model of one stack has every site in kSingleStack.
struct Interventions {
    std::vector<Site> ablated;  ///< sorted, unique
    AblationMode ablation = AblationMode::Zero;
    std::vector<Knockout> knockouts;  ///< sorted, unique
    /// True when nothing is changed.
    bool empty() const { return ablated.empty() && knockouts.empty(); }
    bool operator==(const Interventions&) const = default;
};

/// Hook points of a forward pass (TransformerLens's names). Every family calls them at the same
/// places, so anything written against them (ablation, knockout, patching, the logit lens,
/// attribution, generation) works for every family. Rows are positions; a run that reuses a
/// prefix of FIRST positions from an earlier run passes only the rows from FIRST on, except
/// attention matrices, which hold every query. Defaults do nothing. The hooks of one stack see
/// its layers and heads; an encoder–decoder has one Hooks per component (Seq2SeqHooks).
class Hooks {
  public:
    virtual ~Hooks() = default;
    /// The residual stream entering LAYER, rows [first, n); may be replaced (patching).
    virtual void resid_pre(int layer, Index first, Matrix& x) { (void)layer, (void)first, (void)x; }
    /// HEAD's weights after the softmax, every query × key; may be changed (knockout).
    virtual void pattern(int layer, int head, Matrix& weights) {
        (void)layer, (void)head, (void)weights;
    }
    /// HEAD's output z = weights · V, rows [first, n) × head_dim, before W_O; may be changed
    /// (ablation, patching).
    virtual void z(int layer, int head, Index first, Matrix& z) {
        (void)layer, (void)head, (void)first, (void)z;
    }
    /// The attention block's contribution to the residual stream (after W_O and its bias; for a
    /// post-norm family, before the norm), rows [first, n).
    virtual void attn_out(int layer, Index first, const Matrix& out) {
        (void)layer, (void)first, (void)out;
    }
    /// The MLP block's contribution to the residual stream, rows [first, n).
    virtual void mlp_out(int layer, Index first, const Matrix& out) {
        (void)layer, (void)first, (void)out;
    }
    /// The residual stream leaving the last layer, before the final norm; may be replaced.
    virtual void resid_final(Index first, Matrix& x) { (void)first, (void)x; }
};

/// Several hooks called in order (the controls' interventions, then a caller's own).
class HookChain : public Hooks {
  public:
    /// Adds H (not owned; null ignored).
    void add(Hooks* h) {
        if (h) hooks_.push_back(h);
    }
    /// True when no hook was added.
    bool empty() const { return hooks_.empty(); }
    void resid_pre(int l, Index f, Matrix& x) override {
        for (Hooks* h : hooks_)
            h->resid_pre(l, f, x);
    }
    void pattern(int l, int hd, Matrix& w) override {
        for (Hooks* h : hooks_)
            h->pattern(l, hd, w);
    }
    void z(int l, int hd, Index f, Matrix& z) override {
        for (Hooks* h : hooks_)
            h->z(l, hd, f, z);
    }
    void attn_out(int l, Index f, const Matrix& o) override {
        for (Hooks* h : hooks_)
            h->attn_out(l, f, o);
    }
    void mlp_out(int l, Index f, const Matrix& o) override {
        for (Hooks* h : hooks_)
            h->mlp_out(l, f, o);
    }
    void resid_final(Index f, Matrix& x) override {
        for (Hooks* h : hooks_)
            h->resid_final(f, x);
    }

  private:
    std::vector<Hooks*> hooks_;
};

}  // namespace attn::model
