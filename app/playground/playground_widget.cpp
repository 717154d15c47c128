// AttnScope — the 2-D playground tab. GPL-3.0-or-later.
#include "playground/playground_widget.hpp"

#include <QApplication>
#include <QHBoxLayout>
#include <QLayout>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "model/playground_model.hpp"
#include "playground/controls_panel.hpp"
#include "playground/point_plane.hpp"
#include "playground/readout_panel.hpp"
#include "playground/regression_panel.hpp"
#include "playground/weights_chart.hpp"
#include "views/plot_fit.hpp"
#include "views/scroll_frame.hpp"

PlaygroundWidget::PlaygroundWidget(QUndoStack* undo, QWidget* parent)
    : PlaygroundWidget(*new PlaygroundModel(undo), parent) {
    model_->setParent(this);  // its own model (a render, a test): it lives with the widget
}

PlaygroundWidget::PlaygroundWidget(PlaygroundModel& model, QWidget* parent)
    : QWidget(parent), model_(&model) {
    setObjectName(QStringLiteral("playground"));
    qk_ = new PointPlane(model_, PointPlane::Role::QueryKey);
    values_ = new PointPlane(model_, PointPlane::Role::Value);
    weights_ = new WeightsChart(model_);
    readout_ = new ReadoutPanel(model_);
    controls_ = new ControlsPanel(model_);
    regression_ = new RegressionPanel(model_);

    auto* planes = new QSplitter(Qt::Horizontal);
    planes->addWidget(qk_);
    planes->addWidget(values_);
    planes->setChildrenCollapsible(false);

    auto* scroll = new QScrollArea;
    scroll->setWidget(controls_);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(controls_->sizeHint().width() + 20);
    scroll->setFrameShape(QFrame::NoFrame);

    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(planes);
    top->addWidget(scroll);
    top->setStretchFactor(0, 1);
    top->setStretchFactor(1, 0);
    top->setChildrenCollapsible(false);

    auto* bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(weights_);
    bottom->addWidget(readout_);
    bottom->addWidget(regression_);
    bottom->setSizes({300, 380, 380});
    bottom->setChildrenCollapsible(false);

    auto* main = new QSplitter(Qt::Vertical);
    main->addWidget(top);
    main->addWidget(bottom);
    main->setStretchFactor(0, 3);
    main->setStretchFactor(1, 2);
    main->setChildrenCollapsible(false);

    // Below its readable size the whole playground scrolls: both planes, the controls and the
    // three panels keep their room instead of one of them being squeezed to a sliver.
    auto* frame = new ScrollFrame(main);
    frame->setContentMinimum(main->minimumSizeHint().expandedTo(kReadable));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(frame);
    for (QCustomPlot* plot :
         std::initializer_list<QCustomPlot*>{qk_, values_, weights_, regression_})
        keepPlotReadable(plot);

    connect(controls_, &ControlsPanel::fitRequested, this, &PlaygroundWidget::fitViews);
    connect(model_, &PlaygroundModel::changed, this, &PlaygroundWidget::applyLayoutMode);
    connect(model_, &PlaygroundModel::loaded, this, &PlaygroundWidget::fitViews);
    applyLayoutMode();
}

const attn::PlaygroundState& PlaygroundWidget::state() const {
    return model_->state();
}

void PlaygroundWidget::setState(const attn::PlaygroundState& state) {
    model_->load(state);  // fits the views (loaded)
}

void PlaygroundWidget::applyLayoutMode() {
    const bool overlay = model_->state().overlay;
    values_->setVisible(!overlay);
    if (overlay != overlay_) {
        overlay_ = overlay;
        // The overlaid plane now holds values and outputs too: refit so none is off-screen.
        qk_->refresh();
        qk_->fitView();
        qk_->replot(QCustomPlot::rpQueuedReplot);
    }
}

void PlaygroundWidget::fitViews() {
    for (PointPlane* p : {qk_, values_}) {
        p->fitView();
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

void PlaygroundWidget::replotNow() {
    for (QCustomPlot* p : std::initializer_list<QCustomPlot*>{qk_, values_, weights_, regression_})
        if (p->isVisibleTo(this)) p->replot(QCustomPlot::rpImmediateRefresh);
}

QImage PlaygroundWidget::renderImage(const QSize& size) {
    const QSize old = this->size();
    const bool embedded = !isWindow();
    resize(size);
    // A top-level widget that was never shown has no laid-out children: show it off-screen once.
    // An embedded one (a hidden tab) must not be shown, or it would cover the current tab;
    // QWidget::grab delivers its pending resize events itself.
    if (!isVisible() && !embedded) {
        setAttribute(Qt::WA_DontShowOnScreen, true);
        show();
    }
    if (layout()) layout()->activate();
    QCoreApplication::sendPostedEvents();
    fitViews();
    replotNow();
    const QImage image = grab().toImage();
    if (embedded && old.isValid() && old != size) {
        resize(old);
        fitViews();
    }
    return image;
}
