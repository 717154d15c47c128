// AttnScope — "show the math": one query's attention worked out with the numbers.
// GPL-3.0-or-later.
#pragma once

#include <QTextBrowser>

#include "model/scene_result.hpp"
#include "model/selection.hpp"

/// How the scores were made, for the panel's explanations (the result holds only numbers).
struct MathContext {
    attn::ScoreKind score = attn::ScoreKind::Dot;
    float temperature = 1.f;
};

/// The worked example as HTML: q, every k_j, s(q, k_j), scaled and masked scores, softmax
/// weights and the output vector for the selected query in the selected head. At most maxKeys
/// keys are listed (the largest weights, plus the selected key) so long sequences stay readable.
QString mathHtml(const attn::SceneResult& result, const Selection& selection,
                 const MathContext& context, int maxKeys = 64);

/// Formats a number as the math panel shows it (4 decimals, −∞ for masked scores).
QString mathNumber(double value);

/// A read-only text view of mathHtml that follows the selection.
class MathPanel : public QTextBrowser {
    Q_OBJECT
  public:
    explicit MathPanel(QWidget* parent = nullptr);

    void setResult(SceneResultPtr result);
    void setSelection(const Selection& selection);
    void setContext(const MathContext& context);

  private:
    void rebuild();

    SceneResultPtr result_;
    Selection selection_;
    MathContext context_;
    QString html_;  ///< what is shown
};
