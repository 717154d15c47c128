// AttnScope — the kernel-regression panel. GPL-3.0-or-later.
#include "playground/regression_panel.hpp"

#include <QMouseEvent>
#include <algorithm>
#include <cmath>

#include "views/plot_theme.hpp"

namespace {

constexpr int kRegressionSamples = 241;
const QColor kRbfColor(0, 121, 107);
const QColor kExpColor(230, 81, 0);

}  // namespace

RegressionPanel::RegressionPanel(PlaygroundModel* model, QWidget* parent)
    : QCustomPlot(parent), model_(model) {
    setObjectName(QStringLiteral("playgroundRegression"));
    setMinimumSize(260, 160);
    setAntialiasedElements(QCP::aePlottables | QCP::aeItems);
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(
        this,
        tr("Kernel regression: \u0177(q) = \u03a3 K(q,k\u2c7c) y\u2c7c / \u03a3 K(q,k\u2c7c)"),
        QFont(font().family(), 9, QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    rbf_ = addGraph();
    rbf_->setPen(QPen(kRbfColor, 2));
    rbf_->setName(tr("RBF kernel"));
    expDot_ = addGraph();
    expDot_->setPen(QPen(kExpColor, 2, Qt::DashLine));
    expDot_->setName(tr("exp-dot kernel"));
    keys_ = addGraph();
    keys_->setLineStyle(QCPGraph::lsNone);
    keys_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond,
                                           PlaygroundModel::keyColor(palette()),
                                           PlaygroundModel::keyColor(palette()), 10));
    keys_->setName(tr("keys"));
    marks_ = addGraph();
    marks_->setLineStyle(QCPGraph::lsNone);
    marks_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2),
                                            palette().color(QPalette::Base), 9));
    marks_->removeFromLegend();
    queryLine_ = new QCPItemStraightLine(this);
    queryLine_->setSelectable(false);
    xAxis->setLabel(tr("q, k (1st coordinate)"));
    yAxis->setLabel(tr("y = v (1st coord.)"));
    // The legend sits in its own row under the title, never over the curves.
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    legend->setTextColor(palette().color(QPalette::WindowText));
    axisRect()->insetLayout()->take(legend);
    plotLayout()->insertRow(1);
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);
    applyPlotTheme(this, palette());
    connect(model_, &PlaygroundModel::changed, this, &RegressionPanel::refresh);
    refresh();
}

QPointF RegressionPanel::pixelOfKey(int j) const {
    const auto& s = model_->state();
    if (j < 0 || j >= static_cast<int>(s.keys.size())) return {};
    const auto jj = static_cast<std::size_t>(j);
    return {xAxis->coordToPixel(s.keys[jj].x()), yAxis->coordToPixel(s.values[jj].x())};
}

void RegressionPanel::rescale() {
    const auto& s = model_->state();
    double x0 = -3, x1 = 3, y0 = -1, y1 = 1;
    bool first = true;
    auto grow = [&](double x, double& lo, double& hi) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    };
    for (std::size_t j = 0; j < s.keys.size(); ++j) {
        if (first) {
            x0 = x1 = s.keys[j].x();
            y0 = y1 = s.values[j].x();
            first = false;
        }
        grow(s.keys[j].x(), x0, x1);
        grow(s.values[j].x(), y0, y1);
    }
    for (const auto& q : s.queries)
        grow(q.x(), x0, x1);
    const double mx = std::max(1.0, 0.3 * (x1 - x0)), my = std::max(0.5, 0.15 * (y1 - y0));
    xAxis->setRange(x0 - mx, x1 + mx);
    yAxis->setRange(y0 - my, y1 + my);
}

void RegressionPanel::refresh() {
    const auto& s = model_->state();
    // Keep the axes still during a drag (here or in a plane): a moving frame would make the
    // dragged point appear to stand still. They follow the data when the drag ends.
    if (dragKey_ < 0 && !model_->isLive()) rescale();
    QVector<double> kx, ky;
    for (std::size_t j = 0; j < s.keys.size(); ++j) {
        if (s.is_masked(j)) continue;
        kx.push_back(s.keys[j].x());
        ky.push_back(s.values[j].x());
    }
    keys_->setData(kx, ky);
    QVector<double> xs, yr, ye, mx, my;
    try {
        const auto c = attn::playground_regression(s, xAxis->range().lower, xAxis->range().upper,
                                                   kRegressionSamples);
        for (int i = 0; i < kRegressionSamples; ++i) {
            xs.push_back(c.xs[i]);
            yr.push_back(c.rbf[i]);
            ye.push_back(c.exp_dot[i]);
        }
        const int sel = s.selected_query;
        if (sel >= 0 && sel < static_cast<int>(s.queries.size())) {
            const double q = s.queries[static_cast<std::size_t>(sel)].x();
            const auto at = attn::playground_regression(s, q, q + 1, 2);
            mx << q << q;
            my << at.rbf[0] << at.exp_dot[0];
            queryLine_->setVisible(true);
            queryLine_->point1->setCoords(q, 0);
            queryLine_->point2->setCoords(q, 1);
            queryLine_->setPen(QPen(PlaygroundModel::queryColor(sel), 1.5, Qt::DotLine));
            QCPScatterStyle st = marks_->scatterStyle();
            st.setPen(QPen(PlaygroundModel::queryColor(sel), 2));
            marks_->setScatterStyle(st);
        } else {
            queryLine_->setVisible(false);
        }
        expDot_->setName(tr("exp(%1\u00b7qk)").arg(c.exp_dot_factor, 0, 'g', 3));
        rbf_->setName(tr("RBF, \u03c3 = %1")
                          .arg(s.sigma * std::sqrt(std::max(s.temperature, 1e-6)), 0, 'g', 3));
    } catch (const std::exception&) {
        queryLine_->setVisible(false);
    }
    rbf_->setData(xs, yr, true);
    expDot_->setData(xs, ye, true);
    marks_->setData(mx, my);
    replot(QCustomPlot::rpQueuedReplot);
}

void RegressionPanel::mousePressEvent(QMouseEvent* event) {
    const auto& s = model_->state();
    dragKey_ = -1;
    double best = 10;
    for (int j = 0; j < static_cast<int>(s.keys.size()); ++j) {
        const QPointF d = pixelOfKey(j) - event->position();
        const double dist = std::hypot(d.x(), d.y());
        if (!s.is_masked(static_cast<std::size_t>(j)) && dist < best) {
            best = dist;
            dragKey_ = j;
        }
    }
    if (dragKey_ < 0 || event->button() != Qt::LeftButton) {
        dragKey_ = -1;
        QCustomPlot::mousePressEvent(event);
        return;
    }
    dragStart_ = s;
    anchor_ = {xAxis->pixelToCoord(event->position().x()),
               yAxis->pixelToCoord(event->position().y())};
    model_->setSelection({{PointRef::Kind::Key, dragKey_}});
    model_->beginLive();
    event->accept();
}

void RegressionPanel::mouseMoveEvent(QMouseEvent* event) {
    if (dragKey_ < 0) {
        QCustomPlot::mouseMoveEvent(event);
        return;
    }
    const double dx = xAxis->pixelToCoord(event->position().x()) - anchor_.x();
    const double dy = yAxis->pixelToCoord(event->position().y()) - anchor_.y();
    auto s = dragStart_;
    const auto j = static_cast<std::size_t>(dragKey_);
    s.keys[j].x() = dragStart_.keys[j].x() + dx;
    s.values[j].x() = dragStart_.values[j].x() + dy;
    model_->updateLive(s);
    event->accept();
}

void RegressionPanel::mouseReleaseEvent(QMouseEvent* event) {
    if (dragKey_ < 0) {
        QCustomPlot::mouseReleaseEvent(event);
        return;
    }
    dragKey_ = -1;
    model_->commitLive(tr("Move key and value"));
    event->accept();
}

void RegressionPanel::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(this, palette());
        legend->setTextColor(palette().color(QPalette::WindowText));
        keys_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond,
                                               PlaygroundModel::keyColor(palette()),
                                               PlaygroundModel::keyColor(palette()), 10));
        replot(QCustomPlot::rpQueuedReplot);
    }
}
