// AttnScope core — value zeroing. GPL-3.0-or-later.
#include "attn/attribution/value_zeroing.hpp"

#include <algorithm>
#include <string>

#include "attn/attribution/contributions.hpp"
#include "attn/models/hooks.hpp"
#include "attn/util/error.hpp"

namespace attn::attrib {

namespace {

/// Each head's output z of one layer as it is with one position's value vector zeroed:
/// z_i = Σ_k α_ik v_k, so zeroing v_j leaves z_i − α_ij v_j. With the weights as the run used them
/// (knockouts, ablation: BlockParts) and the run's own z, this is the whole head (the layer's
/// controls and interventions included), whatever the family computed inside.
class ZeroValueHooks : public model::Hooks {
  public:
    ZeroValueHooks(const model::LayerAttention& run, const BlockParts& parts, Index j)
        : run_(run), parts_(parts), j_(j) {}
    void z(int, int head, Index first, Matrix& z) override {
        const std::size_t h = std::size_t(head);
        // Rows [first, n) of the run's z less α_ij v_j (first is 0: the layer runs whole).
        z = run_.heads[h].output.middleRows(first, z.rows()) -
            parts_.alpha[h].col(j_).segment(first, z.rows()) * run_.v[h].row(j_);
    }

  private:
    const model::LayerAttention& run_;
    const BlockParts& parts_;
    Index j_;
};

}  // namespace

std::vector<MatrixD> value_zeroing(const model::Model& model, const model::Run& run,
                                   Progress* progress) {
    const model::ModelInfo& info = model.info();
    if (run.inputs.size() != std::size_t(info.layers) + 1 || run.reused != 0)
        throw ArgumentError("value zeroing needs a whole run of every layer of " + info.display);
    const Index n = Index(run.ids.size());
    std::vector<MatrixD> out;
    for (int l = 0; l < info.layers; ++l) {
        const BlockParts parts = block_parts(model, run, l);
        const model::LayerAttention& layer = run.layers[std::size_t(l)];
        const model::LayerControls controls = model::layer_controls(model, run.controls, l);
        const MatrixD y = run.inputs[std::size_t(l) + 1].cast<double>();
        MatrixD m = MatrixD::Zero(n, n);
        for (Index j = 0; j < n; ++j) {
            ZeroValueHooks zero(layer, parts, j);
            Matrix x = run.inputs[std::size_t(l)];
            model::LayerAttention again;
            model.layer(l, x, 0, nullptr, controls, again, zero);
            const MatrixD changed = x.cast<double>();
            for (Index i = 0; i < n; ++i) {
                const double norms = y.row(i).norm() * changed.row(i).norm();
                const double cos = norms > 0 ? y.row(i).dot(changed.row(i)) / norms : 1.0;
                // 1 − cos is never negative; rounding of equal rows may give −1e-16.
                m(i, j) = std::max(0.0, 1.0 - cos);
            }
            report(progress, (double(l) + double(j + 1) / double(n)) / double(info.layers));
        }
        for (Index i = 0; i < n; ++i) {
            const double s = m.row(i).sum();
            if (s > 0) m.row(i) /= s;
        }
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace attn::attrib
