// AttnScope — the common frame of a theory lens: plots on the left, the idea, its formula,
// the lens's own controls and a numeric readout on the right. GPL-3.0-or-later.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>

#include "export/numbers_export.hpp"

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

/// A lens panel: subclasses build their plots and controls, then implement recompute().
/// The panel follows the scene (specChanged) and recomputes at once when visible, otherwise
/// on the next show, so hidden tabs cost nothing.
class LensPanel : public QWidget {
    Q_OBJECT
  public:
    LensPanel(Scene* scene, const QString& name, QWidget* parent = nullptr);

    /// Recomputes from the scene and the panel's controls, then repaints every plot.
    void refresh();
    /// Schedules refresh() (controls call this; coalesces bursts of slider moves).
    void requestRefresh();
    /// The registry name ("scaling", …).
    QString lensName() const { return name_; }
    /// The panel's plots, in layout order (for tests and export).
    const QList<QCustomPlot*>& plots() const { return plots_; }
    /// The plain text of the readout (numbers shown beside the plots).
    QString readoutText() const;
    /// The numbers the lens plots (every curve, bar chart and matrix, as drawn), brought up to
    /// date first if the scene changed while the lens was hidden: File ▸ Export numbers.
    exporting::PlotNumbers numbers();

  protected:
    /// Computes the lens's numbers and fills the plots; called by refresh().
    virtual void recompute() = 0;
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
    /// Control rows in the form; each change schedules a refresh.
    QSlider* addSlider(const QString& label, int min, int max, int value,
                       std::function<QString(int)> text);
    QSpinBox* addSpin(const QString& label, int min, int max, int value, int step = 1);
    QDoubleSpinBox* addDoubleSpin(const QString& label, double min, double max, double value,
                                  double step, int decimals);
    QComboBox* addCombo(const QString& label, const QStringList& items, int current = 0);
    QCheckBox* addCheck(const QString& text, bool on);

  private:
    Scene* scene_;
    QString name_;
    QGridLayout* grid_ = nullptr;
    QFormLayout* form_ = nullptr;
    QLabel* idea_ = nullptr;
    QLabel* formula_ = nullptr;
    QLabel* readout_ = nullptr;
    QList<QCustomPlot*> plots_;
    bool dirty_ = false;
    bool pending_ = false;
};
