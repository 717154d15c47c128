// AttnScope — the Interventions tab: logit lens, direct logit attribution and activation
// patching of the scene's model run. GPL-3.0-or-later.
#pragma once

#include <QTabWidget>

class AttributionView;
class LogitLensView;
class PatchingView;
class QLabel;
class Scene;

/// A tab per method. Every method reads a model's run: for a synthetic or loaded scene the
/// pages are disabled and a line says why.
class InterventionsTab : public QWidget {
    Q_OBJECT
  public:
    explicit InterventionsTab(Scene* scene, QWidget* parent = nullptr);

    QTabWidget* pages() const { return pages_; }
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
    LogitLensView* lens_;
    AttributionView* attribution_;
    PatchingView* patching_;
};
