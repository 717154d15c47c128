// AttnScope — the Views tab: head lines, coloured text, neuron, rollout and query–key views.
// GPL-3.0-or-later.
#pragma once

#include <QWidget>
#include <array>

#include "views/attention_view.hpp"

class LinesView;
class TokensView;
class NeuronView;
class RolloutView;
class QkView;
class QCheckBox;
class QComboBox;
class QLabel;
class QTabWidget;
class Scene;

/// One tab holding the views BertViz, CircuitsVis and AttentionViz users know, with the display
/// options they share above them. Every view follows the scene's selection and asks the scene
/// to change it; the options (heads one/mean/max, reverse) are this tab's; its "Words, not
/// pieces" box edits the scene's SceneSpec::merge_words.
class ViewsTab : public QWidget {
    Q_OBJECT
  public:
    explicit ViewsTab(Scene* scene, QWidget* parent = nullptr);

    void setResult(SceneResultPtr result);
    void setSelection(const Selection& selection);
    const ViewOptions& options() const { return options_; }
    void setOptions(const ViewOptions& options);

    /// The views, up to date with the last result and selection (hidden, they catch up when
    /// shown or asked for).
    LinesView* lines() const { return catchUp(), lines_; }
    TokensView* tokens() const { return catchUp(), tokens_; }
    NeuronView* neuron() const { return catchUp(), neuron_; }
    RolloutView* rollout() const { return catchUp(), rollout_; }
    QkView* qk() const { return catchUp(), qk_; }
    QTabWidget* tabs() const { return tabs_; }
    QComboBox* reduceBox() const { return reduce_; }
    QComboBox* combineBox() const { return combine_; }
    QCheckBox* wordsBox() const { return words_; }
    QCheckBox* reverseBox() const { return reverse_; }

  Q_SIGNALS:
    /// The user changed the options (heads one/mean/max, reverse): the view state records them.
    void optionsChanged(const ViewOptions& options);

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    void applyOptions();
    void syncCombine();
    /// Hands the views the result and selection they missed while the tab was hidden.
    void catchUp() const;
    std::array<AttentionView*, 5> views() const;

    Scene* scene_;
    ViewOptions options_;
    SceneResultPtr result_;  ///< the last result and selection given (what the views show)
    Selection selection_;
    mutable bool stale_ = false;  ///< hidden: the views have not been given them yet
    QTabWidget* tabs_;
    LinesView* lines_;
    TokensView* tokens_;
    NeuronView* neuron_;
    RolloutView* rollout_;
    QkView* qk_;
    QComboBox* reduce_;
    QComboBox* combine_;
    QCheckBox* words_;
    QCheckBox* reverse_;
    QLabel* rule_;
};
