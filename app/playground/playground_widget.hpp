// AttnScope — the 2-D playground tab: drag queries, keys and values; watch weights, outputs and
// the convex hull. GPL-3.0-or-later.
#pragma once

#include <QImage>
#include <QSize>
#include <QWidget>

#include "attn/playground/playground.hpp"

class QUndoStack;
class QSplitter;
class PlaygroundModel;
class PointPlane;
class WeightsChart;
class ReadoutPanel;
class ControlsPanel;
class RegressionPanel;

/// The whole playground: the query/key plane and the value plane (side by side or overlaid),
/// the weights bar chart, the readout of the selected query, the kernel-regression panel and
/// the playground's own controls. Every edit is a QUndoCommand on the given stack.
class PlaygroundWidget : public QWidget {
    Q_OBJECT
  public:
    /// A playground with a model of its own, editing on `undo` (a render, a test).
    explicit PlaygroundWidget(QUndoStack* undo, QWidget* parent = nullptr);
    /// The window's playground: a view of the view state's model (ViewState::playground()).
    explicit PlaygroundWidget(PlaygroundModel& model, QWidget* parent = nullptr);

    /// The state (its model's).
    const attn::PlaygroundState& state() const;
    /// Replaces the state without an undo entry (loading) and fits the views.
    void setState(const attn::PlaygroundState& state);
    /// Renders the whole tab offscreen at `size` (export, `attnscope render --view playground`).
    QImage renderImage(const QSize& size = QSize(1400, 900));

    PlaygroundModel* model() const { return model_; }
    PointPlane* queryKeyPlane() const { return qk_; }
    PointPlane* valuePlane() const { return values_; }
    WeightsChart* weightsChart() const { return weights_; }
    ReadoutPanel* readout() const { return readout_; }
    ControlsPanel* controls() const { return controls_; }
    RegressionPanel* regression() const { return regression_; }

    /// Fits both planes to their points.
    void fitViews();
    /// Redraws every plot now (not queued): benchmarks and offscreen rendering.
    void replotNow();

    /// Below this size the playground scrolls (two planes, the controls and three panels).
    static constexpr QSize kReadable{900, 560};

  private:
    void applyLayoutMode();

    PlaygroundModel* model_ = nullptr;
    PointPlane* qk_ = nullptr;
    PointPlane* values_ = nullptr;
    WeightsChart* weights_ = nullptr;
    ReadoutPanel* readout_ = nullptr;
    ControlsPanel* controls_ = nullptr;
    RegressionPanel* regression_ = nullptr;
    bool overlay_ = false;
};
