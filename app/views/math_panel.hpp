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
    QString rowNote;  ///< why the weights of a row need not sum to 1 ("" when they do)
};

/// What the panel lists: which keys' rows, and whether every key's k_j and v_j are shown.
struct MathPage {
    int page = -1;         ///< −1: the maxKeys largest weights; else keys page·maxKeys …
    bool allKeys = false;  ///< list k_j and v_j of every listed key, not only the selected one
};

/// Links of the panel's HTML (QTextBrowser anchors).
inline constexpr const char* kMathLinkLargest = "attn:largest";
inline constexpr const char* kMathLinkPage = "attn:page:";  ///< followed by the page number
inline constexpr const char* kMathLinkKeys = "attn:keys";

/// The worked example as HTML: q, every k_j, s(q, k_j), scaled and masked scores, softmax
/// (or at τ = 0 hard-max) weights and the output vector for the selected query in the
/// selected head. Past maxKeys keys it lists the largest weights (plus the selected key) or
/// one page of keys, with links to page through all of them. Number columns are as wide as
/// their widest entry.
QString mathHtml(const attn::SceneResult& result, const Selection& selection,
                 const MathContext& context, int maxKeys = 64, const MathPage& page = {});

/// Formats a number as the math panel shows it (4 decimals, −∞ for masked scores).
QString mathNumber(double value);

/// A read-only text view of mathHtml that follows the selection; its links page through the
/// keys and show every k_j.
class MathPanel : public QTextBrowser {
    Q_OBJECT
  public:
    explicit MathPanel(QWidget* parent = nullptr);

    void setResult(SceneResultPtr result);
    void setSelection(const Selection& selection);
    void setContext(const MathContext& context);
    /// Follows one of the panel's links (kMathLink…).
    void followLink(const QString& link);
    const MathPage& page() const { return page_; }

  private:
    void rebuild();
    /// Shows html in a fresh document (setHtml would lay the panel out twice).
    void showHtml(const QString& html);

    SceneResultPtr result_;
    Selection selection_;
    MathContext context_;
    MathPage page_;
    QString html_;  ///< what is shown
};
