// AttnScope — pure edits of a PlaygroundState. GPL-3.0-or-later.
#include "playground/playground_edits.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace playground {

namespace {

// One accessor for const and non-const states.
template <class State>
auto& points(State& s, PointRef::Kind k) {
    switch (k) {
        case PointRef::Kind::Query:
            return s.queries;
        case PointRef::Kind::Key:
            return s.keys;
        case PointRef::Kind::Value:
            break;
    }
    return s.values;
}

}  // namespace

Eigen::Vector2d position(const attn::PlaygroundState& s, const PointRef& p) {
    const auto& pts = points(s, p.kind);
    if (p.index < 0 || p.index >= static_cast<int>(pts.size())) return Eigen::Vector2d::Zero();
    return pts[static_cast<std::size_t>(p.index)];
}

Eigen::Vector2d snapped(const Eigen::Vector2d& p, double step) {
    if (!(step > 0)) return p;
    return Eigen::Vector2d(std::round(p.x() / step) * step, std::round(p.y() / step) * step);
}

void setPosition(attn::PlaygroundState& s, const PointRef& p, Eigen::Vector2d at) {
    auto& pts = points(s, p.kind);
    if (p.index < 0 || p.index >= static_cast<int>(pts.size())) return;
    if (s.snap_to_grid) at = snapped(at, s.grid_step);
    pts[static_cast<std::size_t>(p.index)] = at;
}

attn::PlaygroundState moved(const attn::PlaygroundState& from, const std::vector<PointRef>& refs,
                            const Eigen::Vector2d& delta) {
    attn::PlaygroundState s = from;
    for (const PointRef& p : refs)
        setPosition(s, p, position(from, p) + delta);
    return s;
}

int addQuery(attn::PlaygroundState& s, const Eigen::Vector2d& at) {
    s.queries.push_back(s.snap_to_grid ? snapped(at, s.grid_step) : at);
    return static_cast<int>(s.queries.size()) - 1;
}

int addKeyValue(attn::PlaygroundState& s, const Eigen::Vector2d& key,
                const Eigen::Vector2d& value) {
    const bool snap = s.snap_to_grid;
    s.keys.push_back(snap ? snapped(key, s.grid_step) : key);
    s.values.push_back(snap ? snapped(value, s.grid_step) : value);
    if (!s.masked.empty()) s.masked.resize(s.keys.size(), false);
    return static_cast<int>(s.keys.size()) - 1;
}

void remove(attn::PlaygroundState& s, const std::vector<PointRef>& refs) {
    std::set<int, std::greater<>> queries, keys;
    for (const PointRef& p : refs) {
        if (p.index < 0) continue;
        (p.kind == PointRef::Kind::Query ? queries : keys).insert(p.index);
    }
    for (int i : queries) {  // descending: earlier indices stay valid
        if (i >= static_cast<int>(s.queries.size())) continue;
        s.queries.erase(s.queries.begin() + i);
        if (s.selected_query > i) --s.selected_query;
    }
    for (int j : keys) {
        if (j >= static_cast<int>(s.keys.size())) continue;
        s.keys.erase(s.keys.begin() + j);
        s.values.erase(s.values.begin() + j);
        if (j < static_cast<int>(s.masked.size())) s.masked.erase(s.masked.begin() + j);
    }
    s.selected_query =
        std::clamp(s.selected_query, 0, std::max(0, static_cast<int>(s.queries.size()) - 1));
}

void toggleMask(attn::PlaygroundState& s, int key) {
    if (key < 0 || key >= static_cast<int>(s.keys.size())) return;
    s.masked.resize(s.keys.size(), false);
    s.masked[static_cast<std::size_t>(key)] = !s.masked[static_cast<std::size_t>(key)];
}

}  // namespace playground
