// AttnScope — one plane of the playground: drawing. (Input handling: point_plane_input.cpp.)
// GPL-3.0-or-later.
#include "playground/point_plane.hpp"

#include <algorithm>

#include "playground/label_placement.hpp"
#include "views/plot_theme.hpp"

namespace {

QColor keyColor(const QPalette& palette) {
    return PlaygroundModel::keyColor(palette);
}
const QColor kValueColor(0, 121, 107);
const QColor kMaskedColor(150, 150, 150);

QVector<double> xs(const std::vector<Eigen::Vector2d>& pts) {
    QVector<double> v;
    v.reserve(static_cast<int>(pts.size()));
    for (const auto& p : pts)
        v.push_back(p.x());
    return v;
}

QVector<double> ys(const std::vector<Eigen::Vector2d>& pts) {
    QVector<double> v;
    v.reserve(static_cast<int>(pts.size()));
    for (const auto& p : pts)
        v.push_back(p.y());
    return v;
}

}  // namespace

PointPlane::PointPlane(PlaygroundModel* model, Role role, QWidget* parent)
    : QCustomPlot(parent), model_(model), role_(role) {
    setObjectName(role == Role::QueryKey ? QStringLiteral("playgroundQueryKeyPlane")
                                         : QStringLiteral("playgroundValuePlane"));
    setFocusPolicy(Qt::StrongFocus);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    setAntialiasedElements(QCP::aePlottables | QCP::aeItems);
    setMinimumSize(260, 240);
    xAxis->setLabel(QStringLiteral("dimension 1"));
    yAxis->setLabel(QStringLiteral("dimension 2"));
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, QString(), QFont(font().family(), 10, QFont::Bold));
    plotLayout()->addElement(0, 0, title_);

    hull_ = new QCPCurve(xAxis, yAxis);
    hull_->setPen(QPen(kValueColor, 1.5));
    QColor fill = kValueColor;
    fill.setAlpha(38);
    hull_->setBrush(fill);
    hull_->setName(tr("convex hull of the values"));
    values_ = scatter(QCPScatterStyle(QCPScatterStyle::ssSquare, kValueColor, kValueColor, 9),
                      tr("values"));
    keys_ = scatter(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, keyColor(palette()), keyColor(palette()), 11),
        tr("keys"));
    maskedKeys_ = scatter(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(kMaskedColor, 1.5),
                                          palette().color(QPalette::Base), 12),
                          tr("masked keys"));
    sample_ =
        scatter(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2.5), Qt::NoBrush, 22),
                tr("hard sample"));
    selected_ = scatter(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(230, 30, 30), 2), Qt::NoBrush, 18),
        tr("selected"));
    applyPlotTheme(this, palette());
    connect(model_, &PlaygroundModel::changed, this, &PointPlane::refresh);
    connect(model_, &PlaygroundModel::selectionChanged, this, &PointPlane::refresh);
    // Label spots depend on pixels: chosen after every layout, on screen and in exports.
    connect(this, &QCustomPlot::afterLayout, this, &PointPlane::placeLabels);
    xAxis->setRange(-3, 3);
    yAxis->setRange(-3, 3);
    refresh();
}

QCPGraph* PointPlane::scatter(QCPScatterStyle style, const QString& name) {
    QCPGraph* g = addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(style);
    g->setName(name);
    return g;
}

bool PointPlane::overlay() const {
    return model_->state().overlay;
}

bool PointPlane::shows(PointRef::Kind kind) const {
    if (role_ == Role::Value) return kind == PointRef::Kind::Value;
    return kind != PointRef::Kind::Value || overlay();
}

QPointF PointPlane::pixelOf(const PointRef& p) const {
    const auto& s = model_->state();
    const auto& pts = p.kind == PointRef::Kind::Query ? s.queries
                      : p.kind == PointRef::Kind::Key ? s.keys
                                                      : s.values;
    if (p.index < 0 || p.index >= static_cast<int>(pts.size())) return {};
    const auto& q = pts[static_cast<std::size_t>(p.index)];
    return {xAxis->coordToPixel(q.x()), yAxis->coordToPixel(q.y())};
}

QPointF PointPlane::coordOf(const QPointF& pixel) const {
    return {xAxis->pixelToCoord(pixel.x()), yAxis->pixelToCoord(pixel.y())};
}

void PointPlane::fitView() {
    const auto& s = model_->state();
    std::vector<Eigen::Vector2d> pts;
    if (shows(PointRef::Kind::Query)) pts.insert(pts.end(), s.queries.begin(), s.queries.end());
    if (shows(PointRef::Kind::Key)) pts.insert(pts.end(), s.keys.begin(), s.keys.end());
    if (shows(PointRef::Kind::Value)) {
        pts.insert(pts.end(), s.values.begin(), s.values.end());
        pts.insert(pts.end(), model_->result().outputs.begin(), model_->result().outputs.end());
    }
    if (pts.empty()) pts.emplace_back(0, 0);
    Eigen::Vector2d lo = pts[0], hi = pts[0];
    for (const auto& p : pts) {
        lo = lo.cwiseMin(p);
        hi = hi.cwiseMax(p);
    }
    const Eigen::Vector2d centre = (lo + hi) / 2;
    const Eigen::Vector2d size = ((hi - lo) * 1.4).cwiseMax(Eigen::Vector2d(2, 2));
    // Equal aspect ratio: angles and dot products must look like what they are.
    updateLayout();  // the axis rect's size is only known once the layout ran
    const QRect r = axisRect()->rect();
    const double w = std::max(r.width(), 50), h = std::max(r.height(), 50);
    const double perUnit = std::min(w / size.x(), h / size.y());
    xAxis->setRange(centre.x() - w / perUnit / 2, centre.x() + w / perUnit / 2);
    yAxis->setRange(centre.y() - h / perUnit / 2, centre.y() + h / perUnit / 2);
}

void PointPlane::keepAspect() {
    updateLayout();
    if (axisRect()->width() > 0 && axisRect()->height() > 0) yAxis->setScaleRatio(xAxis, 1.0);
}

void PointPlane::refresh() {
    const auto& s = model_->state();
    const auto& r = model_->result();
    const bool showQK = role_ == Role::QueryKey;
    const bool showV = shows(PointRef::Kind::Value);
    title_->setText(role_ == Role::Value ? tr("Values v\u2c7c, their convex hull, outputs o\u1d62")
                    : overlay()          ? tr("Queries, keys, values and outputs (overlaid)")
                                         : tr("Queries q\u1d62 and keys k\u2c7c"));

    // Hull: closed polygon (a segment or a point when the values are degenerate).
    QVector<double> hx, hy, ht;
    if (showV) {
        for (std::size_t i = 0; i <= r.hull_points.size() && !r.hull_points.empty(); ++i) {
            const auto& p = r.hull_points[i % r.hull_points.size()];
            ht.push_back(static_cast<double>(i));
            hx.push_back(p.x());
            hy.push_back(p.y());
        }
    }
    hull_->setData(ht, hx, hy);
    values_->setData(showV ? xs(s.values) : QVector<double>(),
                     showV ? ys(s.values) : QVector<double>());

    QVector<double> kx, ky, mx, my;
    if (showQK) {
        for (std::size_t j = 0; j < s.keys.size(); ++j) {
            (s.is_masked(j) ? mx : kx).push_back(s.keys[j].x());
            (s.is_masked(j) ? my : ky).push_back(s.keys[j].y());
        }
    }
    keys_->setData(kx, ky);
    maskedKeys_->setData(mx, my);

    const std::size_t nq = s.queries.size();
    while (queries_.size() < nq) {
        const QColor c = PlaygroundModel::queryColor(static_cast<int>(queries_.size()));
        queries_.push_back(
            scatter(QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 11), tr("query")));
        outputs_.push_back(scatter(QCPScatterStyle(QCPScatterStyle::ssPlusCircle, QPen(c, 2.2),
                                                   palette().color(QPalette::Base), 15),
                                   tr("output")));
    }
    for (std::size_t i = 0; i < queries_.size(); ++i) {
        const bool q = showQK && i < nq;
        const bool o = showV && i < nq && i < r.outputs.size();
        queries_[i]->setVisible(q);
        outputs_[i]->setVisible(o);
        if (q) queries_[i]->setData({s.queries[i].x()}, {s.queries[i].y()});
        if (o) outputs_[i]->setData({r.outputs[i].x()}, {r.outputs[i].y()});
    }

    // The hard-attention sample of the selected query: a ring around the sampled key/value.
    QVector<double> sx, sy;
    const int sel = s.selected_query;
    if (s.hard_sample && sel >= 0 && static_cast<std::size_t>(sel) < r.sampled.size() &&
        r.sampled[static_cast<std::size_t>(sel)] >= 0) {
        const auto j = static_cast<std::size_t>(r.sampled[static_cast<std::size_t>(sel)]);
        const auto& p = showV && !showQK ? s.values[j] : s.keys[j];
        sx.push_back(p.x());
        sy.push_back(p.y());
        if (showQK && showV) {
            sx.push_back(s.values[j].x());
            sy.push_back(s.values[j].y());
        }
        QCPScatterStyle st = sample_->scatterStyle();
        st.setPen(QPen(PlaygroundModel::queryColor(sel), 2.5, Qt::DashLine));
        sample_->setScatterStyle(st);
    }
    sample_->setData(sx, sy);

    QVector<double> selx, sely;
    for (const PointRef& p : model_->selection()) {
        if (!shows(p.kind)) continue;
        const auto& list = p.kind == PointRef::Kind::Query ? s.queries
                           : p.kind == PointRef::Kind::Key ? s.keys
                                                           : s.values;
        if (p.index < 0 || p.index >= static_cast<int>(list.size())) continue;
        selx.push_back(list[static_cast<std::size_t>(p.index)].x());
        sely.push_back(list[static_cast<std::size_t>(p.index)].y());
    }
    selected_->setData(selx, sely);

    drawLines();
    drawLabels();
    if (!fitted_ && isVisible()) {
        fitted_ = true;
        fitView();
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void PointPlane::drawLines() {
    const auto& s = model_->state();
    const auto& r = model_->result();
    const int sel = s.selected_query;
    const bool haveRow =
        sel >= 0 && sel < r.head.weights.rows() && static_cast<std::size_t>(sel) < r.outputs.size();
    // Lines from the selected query to every key (query/key plane) and from its output to every
    // value (value plane): width and opacity ∝ α, so the weighted average can be read off.
    std::vector<std::pair<Eigen::Vector2d, Eigen::Vector2d>> segs;
    std::vector<double> alpha;
    if (haveRow) {
        const auto row = static_cast<std::size_t>(sel);
        // With many keys, near-zero lines are only clutter (and cost drawing time): skip them.
        const double minAlpha = s.keys.size() > 16 ? 0.01 : -1.0;
        for (std::size_t j = 0; j < s.keys.size(); ++j) {
            const double a = r.head.weights(sel, static_cast<Eigen::Index>(j));
            if (a < minAlpha) continue;
            if (role_ == Role::QueryKey) {
                segs.emplace_back(s.queries[row], s.keys[j]);
                alpha.push_back(a);
            }
            if (shows(PointRef::Kind::Value)) {
                segs.emplace_back(r.outputs[row], s.values[j]);
                alpha.push_back(a);
            }
        }
    }
    while (lines_.size() < segs.size()) {
        auto* line = new QCPItemLine(this);
        line->setSelectable(false);
        lines_.push_back(line);
    }
    const QColor base = PlaygroundModel::queryColor(sel);
    for (std::size_t k = 0; k < lines_.size(); ++k) {
        QCPItemLine* line = lines_[k];
        line->setVisible(k < segs.size());
        if (k >= segs.size()) continue;
        line->start->setCoords(segs[k].first.x(), segs[k].first.y());
        line->end->setCoords(segs[k].second.x(), segs[k].second.y());
        QColor c = base;
        c.setAlphaF(static_cast<float>(0.12 + 0.88 * alpha[k]));
        line->setPen(QPen(c, 0.6 + 7.0 * alpha[k], alpha[k] > 0 ? Qt::SolidLine : Qt::DotLine,
                          Qt::RoundCap));
    }
}

void PointPlane::drawLabels() {
    const auto& s = model_->state();
    struct Label {
        Eigen::Vector2d at;
        QString text;
        QColor color;
    };
    std::vector<Label> want;
    // Labels only while they stay readable; with dozens of points they would hide the geometry.
    if (s.keys.size() <= 16) {
        for (std::size_t j = 0; j < s.keys.size(); ++j) {
            const QString n = QString::number(j + 1);
            if (role_ == Role::QueryKey)
                want.push_back({s.keys[j], QStringLiteral("k") + n,
                                s.is_masked(j) ? kMaskedColor : keyColor(palette())});
            if (shows(PointRef::Kind::Value))
                want.push_back({s.values[j], QStringLiteral("v") + n, kValueColor});
        }
    }
    if (s.queries.size() <= 16) {
        for (std::size_t i = 0; i < s.queries.size(); ++i) {
            const QString n = QString::number(i + 1);
            const QColor c = PlaygroundModel::queryColor(static_cast<int>(i));
            if (role_ == Role::QueryKey) want.push_back({s.queries[i], QStringLiteral("q") + n, c});
            if (shows(PointRef::Kind::Value) && i < model_->result().outputs.size())
                want.push_back({model_->result().outputs[i], QStringLiteral("o") + n, c});
        }
    }
    while (labels_.size() < want.size()) {
        auto* t = new QCPItemText(this);
        t->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        t->setPadding(QMargins(7, 0, 0, 5));
        t->setSelectable(false);
        labels_.push_back(t);
    }
    for (std::size_t k = 0; k < labels_.size(); ++k) {
        labels_[k]->setVisible(k < want.size());
        if (k >= want.size()) continue;
        labels_[k]->position->setCoords(want[k].at.x(), want[k].at.y());
        labels_[k]->setText(want[k].text);
        labels_[k]->setColor(want[k].color);
    }
}

void PointPlane::placeLabels() {
    std::vector<QPointF> anchors;
    std::vector<QSizeF> sizes;
    std::vector<QCPItemText*> shown;
    for (QCPItemText* label : labels_) {
        if (!label->visible()) continue;
        shown.push_back(label);
        anchors.push_back(label->position->pixelPosition());
        sizes.push_back(QFontMetricsF(label->font()).size(0, label->text()));
    }
    // Every labelled point is also a marker that no other label may cover.
    const std::vector<int> spot =
        label_placement::place(anchors, sizes, anchors, 5.0, &labelRects_);
    for (std::size_t k = 0; k < shown.size(); ++k) {
        const label_placement::Spot& s = label_placement::spots()[std::size_t(spot[k])];
        shown[k]->setPositionAlignment(s.align);
        shown[k]->setPadding(s.padding);
    }
}

void PointPlane::resizeEvent(QResizeEvent* event) {
    QCustomPlot::resizeEvent(event);
    if (!fitted_) {
        fitted_ = true;
        fitView();
    }
    keepAspect();
    replot(QCustomPlot::rpQueuedReplot);
}

void PointPlane::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(this, palette());
        keys_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, keyColor(palette()),
                                               keyColor(palette()), 11));
        refresh();
    }
}
