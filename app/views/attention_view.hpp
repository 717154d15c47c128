// AttnScope — the common ground of the Views tab's views: result, selection, display options.
// GPL-3.0-or-later.
#pragma once

#include <QColor>
#include <QWidget>
#include <string>
#include <vector>

#include "attn/analysis/view_math.hpp"
#include "model/scene_result.hpp"
#include "model/selection.hpp"
#include "model/view_options.hpp"

/// What the views draw for a result: one head's (or the reduced) weights, with the selection
/// in the shown rows and columns.
struct ShownAttention {
    attn::Matrix weights;                       ///< shown queries × shown keys
    std::vector<std::string> qTokens, kTokens;  ///< labels of the shown rows and columns
    std::vector<attn::Index> queries;           ///< selected queries (shown rows, unique)
    int key = -1;                               ///< selected key (shown column), −1 none
    std::vector<attn::Index> keys;              ///< selected keys (shown columns, unique)
    bool merged = false;                        ///< words, not pieces (SceneSpec::merge_words)
    /// The combined weights of the selected queries (sum or mean), empty when none.
    Eigen::RowVectorXf selectedRow(bool sum) const;
    /// The weight each query gives the selected keys together (sum or mean; nq), empty when
    /// no key is selected.
    Eigen::VectorXf selectedColumn(bool sum) const;
};

/// Builds what the views show for head `head` of result (reduce from options; a mean or max
/// of the heads is computed once per result, whichever view asks). Empty for a null result.
ShownAttention shownAttention(const SceneResultPtr& result, const Selection& selection,
                              const ViewOptions& options, int head);

/// The colour of head h (BertViz-like: one hue per head, distinct for up to 12).
QColor headColor(int head);

/// One sentence saying what several selected queries show ("sum of 3 queries"), or the
/// one query's token; for titles and the math panel.
QString selectionSummary(const Selection& selection, const std::vector<std::string>& tokens);

/// Base of the Views tab's views: holds what they draw and turns clicks into selections.
class QPainter;

class AttentionView : public QWidget {
    Q_OBJECT
  public:
    /// A view named `name` (for tests and style sheets), drawn on the palette's Base colour.
    explicit AttentionView(const QString& name, QWidget* parent = nullptr);

    void setResult(SceneResultPtr result);
    void setSelection(const Selection& selection);
    void setOptions(const ViewOptions& options);
    const SceneResultPtr& result() const { return result_; }
    const Selection& selection() const { return selection_; }
    const ViewOptions& options() const { return options_; }
    /// What is drawn (valid after a result was set).
    const ShownAttention& shown() const { return shown_; }

  Q_SIGNALS:
    /// The user clicked a token (with ctrl/shift: added to or removed from the selected queries).
    void selectionRequested(const Selection& selection);

  protected:
    /// Draws message centred and word-wrapped (what a view shows instead of itself: no scene,
    /// no q and k, nothing selected); false, drawing nothing, when message is empty.
    bool drawMessage(QPainter& painter, const QString& message) const;
    /// Why a view of query and key vectors (`view`, e.g. "The neuron view") cannot draw the
    /// result: no scene, merged words (a word has no vector of its own) or no q and k; "" when
    /// it can.
    QString vectorsMissing(const QString& view) const;
    /// The result, selection or options changed: recompute what is drawn, then repaint.
    virtual void rebuild();
    /// The selection after a click on shown query row r with these modifiers.
    Selection clickedQuery(int row, Qt::KeyboardModifiers modifiers) const;
    /// The selection after a click on shown key column c (ctrl/shift: toggles it among the
    /// selected keys).
    Selection clickedKey(int column, Qt::KeyboardModifiers modifiers = Qt::NoModifier) const;

    SceneResultPtr result_;
    Selection selection_;
    ViewOptions options_;
    ShownAttention shown_;
};
