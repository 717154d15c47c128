// AttnScope core — 2-D geometry. GPL-3.0-or-later.
#include "attn/playground/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "attn/util/error.hpp"

namespace attn {

namespace {

double cross(const Point2& o, const Point2& a, const Point2& b) {
    return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
}

/// Distance from p to segment ab, and the parameter t of the closest point a + t (b − a).
double segment_distance(const Point2& a, const Point2& b, const Point2& p, double* t_out) {
    const Point2 ab = b - a;
    const double len2 = ab.squaredNorm();
    double t = len2 > 0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
    if (t_out) *t_out = t;
    return (a + t * ab - p).norm();
}

}  // namespace

std::vector<int> convex_hull_indices(const std::vector<Point2>& points, double eps) {
    const int n = static_cast<int>(points.size());
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const Point2& p = points[static_cast<std::size_t>(a)];
        const Point2& q = points[static_cast<std::size_t>(b)];
        return p.x() < q.x() || (p.x() == q.x() && (p.y() < q.y() || (p.y() == q.y() && a < b)));
    });
    // Drop (near-)duplicates so the chain never sees a zero-length edge.
    std::vector<int> uniq;
    for (int i : order) {
        if (uniq.empty() ||
            (points[static_cast<std::size_t>(i)] - points[static_cast<std::size_t>(uniq.back())])
                    .norm() > eps)
            uniq.push_back(i);
    }
    if (uniq.size() <= 1) return uniq;

    auto P = [&](int i) -> const Point2& { return points[static_cast<std::size_t>(i)]; };
    // The tolerance on the cross product is relative to the edge lengths, so collinear points
    // with rounding noise are treated as collinear (and dropped) at any coordinate scale.
    auto turns_left = [&](int o, int a, int b) {
        const double c = cross(P(o), P(a), P(b));
        const double scale = (P(a) - P(o)).norm() * (P(b) - P(o)).norm();
        return c > 1e-12 * scale;
    };
    std::vector<int> hull(2 * uniq.size());
    std::size_t k = 0;
    for (int i : uniq) {  // lower chain
        while (k >= 2 && !turns_left(hull[k - 2], hull[k - 1], i))
            --k;
        hull[k++] = i;
    }
    for (std::size_t j = uniq.size() - 1, lower = k + 1; j-- > 0;) {  // upper chain
        const int i = uniq[j];
        while (k >= lower && !turns_left(hull[k - 2], hull[k - 1], i))
            --k;
        hull[k++] = i;
    }
    hull.resize(k - 1);  // the last point repeats the first
    return hull;
}

std::vector<Point2> convex_hull(const std::vector<Point2>& points, double eps) {
    std::vector<Point2> out;
    for (int i : convex_hull_indices(points, eps))
        out.push_back(points[static_cast<std::size_t>(i)]);
    return out;
}

double distance_to_hull(const std::vector<Point2>& hull, const Point2& p) {
    const std::size_t n = hull.size();
    if (n == 0) return std::numeric_limits<double>::infinity();
    if (n == 1) return (hull[0] - p).norm();
    if (n == 2) return segment_distance(hull[0], hull[1], p, nullptr);
    bool inside = true;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
        const Point2& a = hull[i];
        const Point2& b = hull[(i + 1) % n];
        if (cross(a, b, p) < 0) inside = false;
        best = std::min(best, segment_distance(a, b, p, nullptr));
    }
    return inside ? 0.0 : best;
}

bool point_in_hull(const std::vector<Point2>& hull, const Point2& p, double tol) {
    return distance_to_hull(hull, p) <= tol;
}

std::optional<Eigen::Vector3d> barycentric(const Point2& a, const Point2& b, const Point2& c,
                                           const Point2& p) {
    const double area = cross(a, b, c);
    const double scale = std::max({(b - a).squaredNorm(), (c - a).squaredNorm(), 1e-300});
    if (std::abs(area) <= 1e-14 * scale) return std::nullopt;
    const double la = cross(p, b, c) / area;
    const double lb = cross(a, p, c) / area;
    return Eigen::Vector3d(la, lb, 1.0 - la - lb);
}

Eigen::VectorXd polygon_barycentric(const std::vector<Point2>& polygon, const Point2& p) {
    const int n = static_cast<int>(polygon.size());
    if (n == 0) throw ArgumentError("polygon_barycentric: the polygon has no vertex.");
    Eigen::VectorXd lambda = Eigen::VectorXd::Zero(n);
    if (n == 1) {
        lambda[0] = 1;
        return lambda;
    }
    if (n == 2) {
        double t = 0;
        const Point2 ab = polygon[1] - polygon[0];
        const double len2 = ab.squaredNorm();
        t = len2 > 0 ? (p - polygon[0]).dot(ab) / len2 : 0.0;
        lambda << 1 - t, t;
        return lambda;
    }
    double extent = 0;
    for (const Point2& v : polygon)
        extent = std::max(extent, (v - polygon[0]).norm());
    const double tiny = 1e-12 * std::max(extent, 1e-300);
    // On a vertex or an edge the mean-value formula divides by zero; there the coordinates are
    // the linear interpolation along that edge (the limit of the formula).
    for (int i = 0; i < n; ++i) {
        const Point2& a = polygon[static_cast<std::size_t>(i)];
        const Point2& b = polygon[static_cast<std::size_t>((i + 1) % n)];
        double t = 0;
        if (segment_distance(a, b, p, &t) <= tiny) {
            lambda[i] = 1 - t;
            lambda[(i + 1) % n] += t;
            return lambda;
        }
    }
    // Mean-value coordinates (Floater 2003): w_i = (tan(α_{i−1}/2) + tan(α_i/2)) / ‖v_i − p‖,
    // α_i the signed angle at p between v_i and v_{i+1}; defined (possibly negative) outside too.
    std::vector<double> r(static_cast<std::size_t>(n)), tan_half(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        r[static_cast<std::size_t>(i)] = (polygon[static_cast<std::size_t>(i)] - p).norm();
    for (int i = 0; i < n; ++i) {
        const Point2 di = polygon[static_cast<std::size_t>(i)] - p;
        const Point2 dj = polygon[static_cast<std::size_t>((i + 1) % n)] - p;
        const double s = di.x() * dj.y() - di.y() * dj.x();
        const double c = di.dot(dj);
        // tan(α/2) = sin α / (1 + cos α) = s / (r_i r_j + c), stable for α away from ±π.
        tan_half[static_cast<std::size_t>(i)] =
            s / (r[static_cast<std::size_t>(i)] * r[static_cast<std::size_t>((i + 1) % n)] + c);
    }
    double total = 0;
    for (int i = 0; i < n; ++i) {
        const double w = (tan_half[static_cast<std::size_t>((i + n - 1) % n)] +
                          tan_half[static_cast<std::size_t>(i)]) /
                         r[static_cast<std::size_t>(i)];
        lambda[i] = w;
        total += w;
    }
    return lambda / total;
}

Point2 weighted_mean(const std::vector<Point2>& points, const Eigen::VectorXd& weights) {
    if (points.empty()) throw ArgumentError("weighted_mean: there is no point.");
    if (static_cast<Eigen::Index>(points.size()) != weights.size())
        throw ArgumentError("weighted_mean: " + std::to_string(points.size()) + " points but " +
                            std::to_string(weights.size()) + " weights.");
    const double total = weights.sum();
    if (total == 0 || !std::isfinite(total))
        throw ArgumentError("weighted_mean: the weights sum to zero or are not finite.");
    Point2 sum = Point2::Zero();
    for (std::size_t i = 0; i < points.size(); ++i)
        sum += weights[static_cast<Eigen::Index>(i)] * points[i];
    return sum / total;
}

}  // namespace attn
