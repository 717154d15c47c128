// AttnScope — the Interventions tab: logit lens, direct logit attribution and activation
// patching of the scene's model run. GPL-3.0-or-later.
#pragma once

#include <QTabWidget>

class AttributionView;
class InterventionsList;
class LogitLensView;
class PatchingView;
class QLabel;
class Scene;
class Seq2SeqInterventionsView;

/// The interventions in effect, then a tab per method. Every method reads a model's run: for a
/// synthetic or loaded scene the pages are disabled and a line says why; for a run of an open
/// encoder–decoder the seq2seq view stands in their place.
class InterventionsTab : public QWidget {
    Q_OBJECT
  public:
    explicit InterventionsTab(Scene* scene, QWidget* parent = nullptr);

    QTabWidget* pages() const { return pages_; }
    /// The ablations and knockouts in effect, fields adding one, the induction test.
    InterventionsList* inEffect() const { return inEffect_; }
    LogitLensView* lens() const { return lens_; }
    AttributionView* attribution() const { return attribution_; }
    PatchingView* patching() const { return patching_; }
    /// The view shown instead of the pages while the scene is an encoder–decoder's run.
    Seq2SeqInterventionsView* seq2seq() const { return seq2seq_; }
    /// Shows the pages or the seq2seq view as the scene asks (after the seq2seq view's
    /// subject changes).
    void sync();
    /// Why the pages are disabled ("" for a model scene).
    QString reason() const;

  private:
    Scene* scene_;
    QLabel* reason_;
    QTabWidget* pages_;
    InterventionsList* inEffect_;
    LogitLensView* lens_;
    AttributionView* attribution_;
    PatchingView* patching_;
    Seq2SeqInterventionsView* seq2seq_;
};
