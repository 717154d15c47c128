// AttnScope — one plane of the playground: mouse and keyboard. GPL-3.0-or-later.
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <algorithm>

#include "playground/playground_edits.hpp"
#include "playground/point_plane.hpp"

namespace {

/// Points within this many pixels of the cursor can be grabbed.
constexpr double kHitRadius = 10.0;

}  // namespace

std::optional<PointRef> PointPlane::hit(const QPointF& pixel) const {
    const auto& s = model_->state();
    std::optional<PointRef> best;
    double bestDist = kHitRadius;
    // Queries first, then keys, then values: on a tie the earlier kind wins (drawn on top).
    const std::pair<PointRef::Kind, const std::vector<Eigen::Vector2d>*> lists[] = {
        {PointRef::Kind::Query, &s.queries},
        {PointRef::Kind::Key, &s.keys},
        {PointRef::Kind::Value, &s.values}};
    for (const auto& [kind, pts] : lists) {
        if (!shows(kind)) continue;
        for (std::size_t i = 0; i < pts->size(); ++i) {
            const PointRef ref{kind, static_cast<int>(i)};
            const QPointF d = pixelOf(ref) - pixel;
            const double dist = std::hypot(d.x(), d.y());
            if (dist < bestDist) {
                bestDist = dist;
                best = ref;
            }
        }
    }
    return best;
}

void PointPlane::mousePressEvent(QMouseEvent* event) {
    setFocus(Qt::MouseFocusReason);
    const auto p = event->button() == Qt::LeftButton ? hit(event->position()) : std::nullopt;
    if (!p) {
        if (event->button() == Qt::LeftButton && !(event->modifiers() & Qt::ControlModifier))
            model_->setSelection({});
        QCustomPlot::mousePressEvent(event);  // pan
        return;
    }
    // Alt-click masks or unmasks a key (Alt-click on a value masks its key).
    if (event->modifiers() & Qt::AltModifier) {
        if (p->kind != PointRef::Kind::Query) toggleMaskOf(p->index);
        return;
    }
    std::vector<PointRef> sel = model_->selection();
    if (event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier)) {
        const auto it = std::find(sel.begin(), sel.end(), *p);
        if (it != sel.end())
            sel.erase(it);
        else
            sel.push_back(*p);
        model_->setSelection(sel);
        if (!model_->isSelected(*p)) return;
    } else if (!model_->isSelected(*p)) {
        model_->setSelection({*p});
    } else if (p->kind == PointRef::Kind::Query) {
        // Re-pressing a selected query makes it the shown one again.
        auto st = model_->state();
        if (st.selected_query != p->index) {
            st.selected_query = p->index;
            model_->resetState(st);
        }
    }
    dragging_ = true;
    dragStart_ = model_->state();
    dragged_.clear();
    for (const PointRef& r : model_->selection())
        if (shows(r.kind)) dragged_.push_back(r);
    anchor_ = coordOf(event->position());
    model_->beginLive();
    event->accept();
}

void PointPlane::mouseMoveEvent(QMouseEvent* event) {
    if (!dragging_) {
        QCustomPlot::mouseMoveEvent(event);
        return;
    }
    const QPointF now = coordOf(event->position());
    const Eigen::Vector2d delta(now.x() - anchor_.x(), now.y() - anchor_.y());
    model_->updateLive(playground::moved(dragStart_, dragged_, delta));
    event->accept();
}

void PointPlane::mouseReleaseEvent(QMouseEvent* event) {
    if (!dragging_) {
        QCustomPlot::mouseReleaseEvent(event);
        return;
    }
    dragging_ = false;
    model_->commitLive(dragged_.size() == 1 ? tr("Move point") : tr("Move points"));
    event->accept();
}

void PointPlane::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || hit(event->position())) {
        QCustomPlot::mouseDoubleClickEvent(event);
        return;
    }
    // Double-click adds a key (with its value) here; with Shift in the query/key plane, a query.
    addAt(event->position(), role_ == Role::QueryKey && (event->modifiers() & Qt::ShiftModifier));
    event->accept();
}

void PointPlane::addAt(const QPointF& pixel, bool query) {
    const QPointF c = coordOf(pixel);
    const Eigen::Vector2d at(c.x(), c.y());
    auto s = model_->state();
    if (query) {
        const int i = playground::addQuery(s, at);
        s.selected_query = i;
        model_->setState(s, tr("Add query"));
        model_->setSelection({{PointRef::Kind::Query, i}});
        return;
    }
    // The new pair's other half goes to the same coordinates in the other plane.
    const int j = playground::addKeyValue(s, at, at);
    model_->setState(s, tr("Add key and value"));
    model_->setSelection({{role_ == Role::Value ? PointRef::Kind::Value : PointRef::Kind::Key, j}});
}

void PointPlane::deleteSelection() {
    if (model_->selection().empty()) return;
    auto s = model_->state();
    playground::remove(s, model_->selection());
    model_->setSelection({});
    model_->setState(s, tr("Delete points"));
}

void PointPlane::nudge(double dx, double dy) {
    std::vector<PointRef> refs;
    for (const PointRef& r : model_->selection())
        if (shows(r.kind)) refs.push_back(r);
    if (refs.empty()) return;
    const auto& s = model_->state();
    // One grid step when snapping, else a small fixed step in plot units.
    const double step = s.snap_to_grid ? s.grid_step : 0.05;
    // Consecutive nudges merge into one undo step.
    model_->setState(playground::moved(s, refs, Eigen::Vector2d(dx * step, dy * step)),
                     tr("Nudge points"), 0x504e);
}

void PointPlane::toggleMaskOf(int key) {
    auto s = model_->state();
    playground::toggleMask(s, key);
    model_->setState(
        s, s.is_masked(static_cast<std::size_t>(key)) ? tr("Mask key") : tr("Unmask key"));
}

void PointPlane::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Delete:
        case Qt::Key_Backspace:
            deleteSelection();
            break;
        case Qt::Key_Left:
            nudge(-1, 0);
            break;
        case Qt::Key_Right:
            nudge(1, 0);
            break;
        case Qt::Key_Up:
            nudge(0, 1);
            break;
        case Qt::Key_Down:
            nudge(0, -1);
            break;
        case Qt::Key_Escape:
            model_->setSelection({});
            break;
        default:
            QCustomPlot::keyPressEvent(event);
            return;
    }
    event->accept();
}

void PointPlane::contextMenuEvent(QContextMenuEvent* event) {
    const QPointF pos = event->pos();
    const auto p = hit(pos);
    QMenu menu(this);
    if (role_ == Role::QueryKey)
        connect(menu.addAction(tr("Add query here")), &QAction::triggered, this,
                [this, pos] { addAt(pos, true); });
    connect(menu.addAction(tr("Add key and value here")), &QAction::triggered, this,
            [this, pos] { addAt(pos, false); });
    if (p && p->kind != PointRef::Kind::Query) {
        const bool masked = model_->state().is_masked(static_cast<std::size_t>(p->index));
        connect(menu.addAction(masked ? tr("Unmask key %1").arg(p->index + 1)
                                      : tr("Mask key %1").arg(p->index + 1)),
                &QAction::triggered, this, [this, j = p->index] { toggleMaskOf(j); });
    }
    if (p && !model_->isSelected(*p)) model_->setSelection({*p});
    QAction* del = menu.addAction(tr("Delete selected"));
    del->setEnabled(!model_->selection().empty());
    connect(del, &QAction::triggered, this, &PointPlane::deleteSelection);
    menu.addSeparator();
    connect(menu.addAction(tr("Fit view")), &QAction::triggered, this, [this] {
        fitView();
        replot();
    });
    menu.exec(event->globalPos());
}
