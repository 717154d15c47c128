// AttnScope — pure edits of a PlaygroundState (move, add, delete, mask, snap). GPL-3.0-or-later.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "attn/playground/playground.hpp"
#include "model/playground_model.hpp"

namespace playground {

/// Position of a point in its plane.
Eigen::Vector2d position(const attn::PlaygroundState& s, const PointRef& p);

/// Sets a point's position (snapped to the grid when the state asks for it).
void setPosition(attn::PlaygroundState& s, const PointRef& p, Eigen::Vector2d at);

/// Moves every point in `refs` by delta from its position in `from` (snapping each if asked).
attn::PlaygroundState moved(const attn::PlaygroundState& from, const std::vector<PointRef>& refs,
                            const Eigen::Vector2d& delta);

/// Appends a query at `at`; returns its index.
int addQuery(attn::PlaygroundState& s, const Eigen::Vector2d& at);

/// Appends a key at `key` with its value at `value`; returns its index.
int addKeyValue(attn::PlaygroundState& s, const Eigen::Vector2d& key, const Eigen::Vector2d& value);

/// Removes the points; a key and its value always go together. Keeps selected_query valid.
void remove(attn::PlaygroundState& s, const std::vector<PointRef>& refs);

/// Flips key j's mask flag.
void toggleMask(attn::PlaygroundState& s, int key);

/// Rounds to the nearest multiple of step (step ≤ 0: unchanged).
Eigen::Vector2d snapped(const Eigen::Vector2d& p, double step);

}  // namespace playground
