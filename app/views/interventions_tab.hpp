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

/// The interventions in effect, then a tab per method. Every method reads a model's run: for a
/// synthetic or loaded scene the pages are disabled and a line says why.
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
    /// Why the pages are disabled ("" for a model scene).
    QString reason() const;

  private:
    void sync();

    Scene* scene_;
    QLabel* reason_;
    QTabWidget* pages_;
    InterventionsList* inEffect_;
    LogitLensView* lens_;
    AttributionView* attribution_;
    PatchingView* patching_;
};
