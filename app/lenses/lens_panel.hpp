// AttnScope — the common frame of a theory lens: plots on the left, the idea, its formula,
// the lens's own controls and a numeric readout on the right. GPL-3.0-or-later.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <thread>

#include "attn/util/progress.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QSlider;
class QSpinBox;
class QFormLayout;
class QGridLayout;
class QLabel;
class QCPAxis;
class QCPGraph;
class QCPColorMap;
class QCPTextElement;
class Scene;

/// What a lens's numbers depend on.
enum class LensInputs {
    Controls,  ///< its own controls only: a scene change costs it nothing
    Scene,     ///< the scene as well: recomputed off the GUI thread when the scene changes
};

/// A lens panel: subclasses build their plots and controls, then implement recompute() (lenses
/// of their controls alone) or prepare() (lenses that read the scene). A lens that reads the
/// scene follows it: while visible it recomputes as the scheduler's job "lens" (a newer change
/// supersedes an older one), otherwise on its next show, so hidden tabs cost nothing.
class LensPanel : public QWidget {
    Q_OBJECT
  public:
    LensPanel(Scene* scene, const QString& name, LensInputs inputs, QWidget* parent = nullptr);

    /// Recomputes from the scene and the panel's controls now, then repaints every plot. A lens
    /// of the scene computes as a scheduler job while this waits with the events live (never
    /// on the GUI thread); throws attn::Cancelled when its progress dialog is cancelled.
    void refresh();
    /// Schedules a refresh (controls call this; coalesces bursts of slider moves): on the GUI
    /// thread for lenses of their controls, as a scheduler job for lenses of the scene.
    void requestRefresh();
    /// What the lens depends on.
    LensInputs inputs() const { return inputs_; }
    /// Computations so far, and whether the last one ran off the GUI thread (tests).
    int computations() const { return computations_; }
    bool lastComputedOffGuiThread() const { return offGuiThread_; }
    /// The registry name ("scaling", …).
    QString lensName() const { return name_; }
    /// The panel's plots, in layout order (for tests and export).
    const QList<QCustomPlot*>& plots() const { return plots_; }
    /// The plain text of the readout (numbers shown beside the plots).
    QString readoutText() const;
    /// The plain text of the explanation (what the lens shows and why).
    QString explanationText() const;
    /// The plots brought up to date first (a scene change while the lens was hidden, or a
    /// refresh still computing): what File ▸ Export numbers reads (refresh()).
    const QList<QCustomPlot*>& currentPlots();
    /// The lens's own controls (sliders, spin boxes, lists, check boxes, text fields) by their
    /// stable keys: what the view state holds (model/view_state.hpp) and sessions store.
    QJsonObject settings() const;
    /// Sets the controls named in `settings` (unknown names and values out of range are
    /// ignored) and recomputes.
    void setSettings(const QJsonObject& settings);
    /// After the lens built its controls (the window's lenses): from now on a change of a
    /// control is the user's edit, one undo step of the view state (ViewState::
    /// editLensSettings) — a slider drag, a spin box's steps or a burst of typing one step —
    /// and a typed text (which refreshes nothing until Enter) reaches it as it changes.
    void recordEdits();
    /// Sets the controls from a session of 0.1, which keyed them by their labels ("heads h").
    void setLegacySettings(const QJsonObject& settings);

    /// The smallest size of a plot: below it the plots scroll (title, ticks and legend fit).
    static constexpr QSize kPlotMinimum{300, 240};

  protected:
    /// While one lives, control changes follow the scene or the view state (a lens adjusting a
    /// range, following the selection): recorded in the view state, never an undo step.
    class Following {
      public:
        explicit Following(LensPanel* panel) : panel_(panel) { ++panel_->following_; }
        ~Following() { --panel_->following_; }
        Following(const Following&) = delete;
        Following& operator=(const Following&) = delete;

      private:
        LensPanel* panel_;
    };
    /// The GUI-thread step that fills the plots with computed numbers.
    using Draw = std::function<void()>;
    /// A lens's computation: runs on a worker, touching nothing but what it captured, and
    /// returns the drawing step.
    using Compute = std::function<Draw(attn::Progress&)>;
    /// Reads the controls and the scene (on the GUI thread) and returns the computation. The
    /// default draws with recompute(), for lenses cheap enough to compute on the GUI thread.
    virtual Compute prepare();
    /// Computes the lens's numbers and fills the plots (lenses that do not override prepare()).
    virtual void recompute() {}
    /// The end of a lens's constructor: a lens of its controls draws now; a lens of the scene
    /// when first shown or exported (a constructor waits for no job).
    void refreshWhenShown();
    void showEvent(QShowEvent* event) override;

    /// Adds a themed plot at (row, col) of the plot grid, with a title row.
    QCustomPlot* addPlot(int row, int col, const QString& title, int rowSpan = 1, int colSpan = 1);
    /// Sets the explanation: the idea (rich text) and its formula.
    void setExplanation(const QString& idea, const QString& formula);
    /// The form the subclass puts its controls in.
    QFormLayout* controls() const { return form_; }
    /// Replaces the readout (rich text).
    void setReadout(const QString& html);
    Scene* scene() const { return scene_; }
    /// A new line graph on plot with a name for the legend.
    static QCPGraph* addGraph(QCustomPlot* plot, const QString& name, const QColor& color,
                              Qt::PenStyle style = Qt::SolidLine, double width = 2.0);
    /// Makes axis logarithmic (base 10, powers-of-ten ticks).
    static void setLogAxis(QCPAxis* axis);
    /// Changes a plot's title.
    static void setPlotTitle(QCustomPlot* plot, const QString& title);
    /// Palette-aware series colours (Okabe–Ito, readable on light and dark backgrounds).
    static QColor seriesColor(int i);
    /// Control rows in the form; each change schedules a refresh. key is the control's stable
    /// name in the view state and in sessions (a constant, never the translated label).
    QSlider* addSlider(const char* key, const QString& label, int min, int max, int value,
                       std::function<QString(int)> text);
    QSpinBox* addSpin(const char* key, const QString& label, int min, int max, int value,
                      int step = 1);
    /// A spin box of an index 0…max (its value and its key's value in sessions) shown from 1,
    /// as the window counts queries and keys (IndexSpinBox).
    QSpinBox* addIndexSpin(const char* key, const QString& label, int max, int value);
    QDoubleSpinBox* addDoubleSpin(const char* key, const QString& label, double min, double max,
                                  double value, double step, int decimals);
    QComboBox* addCombo(const char* key, const QString& label, const QStringList& items,
                        int current = 0);
    QCheckBox* addCheck(const char* key, const QString& text, bool on);

  private:
    QSpinBox* placeSpin(QSpinBox* spin, const char* key, const QString& label, int min, int max,
                        int value, int step);
    /// Gives the view state the controls' values: a user's edit as an undo step (recordEdits),
    /// else as they are.
    void recordSettings();
    /// The merge key of an edit from before to after (lens_settings.cpp).
    QString mergeKey(const QJsonObject& before, const QJsonObject& after) const;
    /// Sets the controls from settings keyed by their stable keys, or by their 0.1 keys.
    void applySettings(const QJsonObject& settings, bool legacy);
    /// Names a control by its stable key and keeps its 0.1 key (lens_settings.cpp).
    static void nameControl(QWidget* control, const char* key, const QString& label);
    Scene* scene_;
    QString name_;
    QGridLayout* grid_ = nullptr;
    QFormLayout* form_ = nullptr;
    QLabel* idea_ = nullptr;
    QLabel* formula_ = nullptr;
    QLabel* readout_ = nullptr;
    QList<QCustomPlot*> plots_;
    LensInputs inputs_;
    bool dirty_ = false;
    bool waitingScene_ = false;  ///< a refresh waits for the window's scene (sceneSettled)
    bool pending_ = false;       ///< a refresh is queued or computing
    bool queued_ = false;        ///< requestRefresh's timer is armed
    int computations_ = 0;
    int following_ = 0;       ///< Following guards alive
    bool recording_ = false;  ///< control changes are the user's edits (recordEdits)
    bool offGuiThread_ = false;
    std::thread::id guiThread_ = std::this_thread::get_id();

    void startJob();
    void draw(const Draw& draw);
};
