// AttnScope core — 2-D geometry for the playground: convex hull, point-in-hull, barycentric
// coordinates, weighted mean. GPL-3.0-or-later.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <vector>

namespace attn {

/// A point of the plane.
using Point2 = Eigen::Vector2d;

/// Indices of the convex hull's vertices in counter-clockwise order (Andrew's monotone chain),
/// starting at the lowest-x (then lowest-y) point. Duplicates and points on an edge are dropped
/// (points closer than `eps` count as equal). Degenerate inputs: no point → {}, all equal → one
/// index, all collinear → the two extreme points of the segment.
std::vector<int> convex_hull_indices(const std::vector<Point2>& points, double eps = 1e-12);

/// The convex hull's vertices (see convex_hull_indices).
std::vector<Point2> convex_hull(const std::vector<Point2>& points, double eps = 1e-12);

/// Distance from p to a hull given by CCW vertices (0 inside); works for a point or a segment.
/// An empty hull gives +infinity.
double distance_to_hull(const std::vector<Point2>& hull, const Point2& p);

/// Whether p lies in the hull (CCW vertices) or within `tol` of it; degenerate hulls (one point,
/// a segment) are handled as the point or the segment.
bool point_in_hull(const std::vector<Point2>& hull, const Point2& p, double tol = 1e-9);

/// Barycentric coordinates (λa, λb, λc) of p in triangle abc, with λa a + λb b + λc c = p and
/// Σλ = 1; negative outside. Empty for a degenerate (zero-area) triangle.
std::optional<Eigen::Vector3d> barycentric(const Point2& a, const Point2& b, const Point2& c,
                                           const Point2& p);

/// Generalised barycentric (mean-value) coordinates of p with respect to the vertices of a
/// convex polygon (CCW): Σλ = 1 and Σ λ_i v_i = p; all λ ≥ 0 when p is inside. Points on an edge
/// or a vertex get the exact linear coordinates. Degenerate polygons: one vertex → {1}; a
/// segment → the projection's linear coordinates. Throws ArgumentError on an empty polygon.
Eigen::VectorXd polygon_barycentric(const std::vector<Point2>& polygon, const Point2& p);

/// Σ w_j p_j / Σ w_j; throws ArgumentError on size mismatch, empty input or zero total weight.
Point2 weighted_mean(const std::vector<Point2>& points, const Eigen::VectorXd& weights);

}  // namespace attn
