// AttnScope — the playground's readout: the math of the selected query, its barycentric
// coordinates and whether its output lies inside the hull. GPL-3.0-or-later.
#pragma once

#include <QTextBrowser>

#include "model/playground_model.hpp"

/// Shows s(q, k_j), the √(N/2) factor, scaling and τ, the weights α_j, the output o = Σ α_j v_j,
/// "inside hull", and o's mean-value coordinates on the hull's vertices.
class ReadoutPanel : public QTextBrowser {
    Q_OBJECT
  public:
    explicit ReadoutPanel(PlaygroundModel* model, QWidget* parent = nullptr);
    /// Redraws from the model.
    void refresh();

  private:
    PlaygroundModel* model_;
};

/// The readout's HTML for a state and its result (separate so tests can read it).
QString playgroundReadoutHtml(const attn::PlaygroundState& state,
                              const attn::PlaygroundResult& result);
