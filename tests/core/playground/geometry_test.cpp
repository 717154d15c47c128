// Tests of the 2-D geometry: convex hull, point-in-hull, barycentric coordinates, weighted mean.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "attn/playground/geometry.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Point2;

bool contains(const std::vector<Point2>& pts, const Point2& p) {
    return std::any_of(pts.begin(), pts.end(),
                       [&](const Point2& q) { return (q - p).norm() < 1e-12; });
}

double signed_area(const std::vector<Point2>& h) {
    double a = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
        const Point2& p = h[i];
        const Point2& q = h[(i + 1) % h.size()];
        a += p.x() * q.y() - p.y() * q.x();
    }
    return a / 2;
}

TEST(ConvexHull, SquareWithInteriorDuplicateAndCollinearPoints) {
    std::vector<Point2> pts = {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 1}, {0.5, 1.5}, {2, 2},
                               {0, 0}, {1, 0}, {2, 1}, {1, 2}, {0, 1}, {0.5, 0},   {2, 2}};
    const auto hull = attn::convex_hull(pts);
    ASSERT_EQ(hull.size(), 4u);
    for (const Point2& c : {Point2(0, 0), Point2(2, 0), Point2(2, 2), Point2(0, 2)})
        EXPECT_TRUE(contains(hull, c));
    EXPECT_NEAR(signed_area(hull), 4.0, 1e-12);  // positive: counter-clockwise
    EXPECT_EQ(hull[0], Point2(0, 0));            // starts at the lowest-x, lowest-y point
}

TEST(ConvexHull, IndicesPointIntoInput) {
    std::vector<Point2> pts = {{1, 1}, {0, 0}, {3, 0}, {0, 3}};
    const auto idx = attn::convex_hull_indices(pts);
    ASSERT_EQ(idx.size(), 3u);
    EXPECT_EQ(idx[0], 1);
    EXPECT_EQ(idx[1], 2);
    EXPECT_EQ(idx[2], 3);
}

TEST(ConvexHull, DegenerateCases) {
    EXPECT_TRUE(attn::convex_hull({}).empty());
    const auto one = attn::convex_hull({{1, 2}});
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0], Point2(1, 2));
    const auto same = attn::convex_hull({{1, 2}, {1, 2}, {1, 2}});
    ASSERT_EQ(same.size(), 1u);
    const auto two = attn::convex_hull({{3, 1}, {1, 2}});
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[0], Point2(1, 2));
    EXPECT_EQ(two[1], Point2(3, 1));
    // Collinear, unsorted, with duplicates: the segment's two ends.
    const auto line = attn::convex_hull({{2, 2}, {0, 0}, {3, 3}, {1, 1}, {3, 3}, {-1, -1}});
    ASSERT_EQ(line.size(), 2u);
    EXPECT_EQ(line[0], Point2(-1, -1));
    EXPECT_EQ(line[1], Point2(3, 3));
    // A vertical line (equal x everywhere).
    const auto vert = attn::convex_hull({{0, 5}, {0, 1}, {0, 3}});
    ASSERT_EQ(vert.size(), 2u);
    EXPECT_EQ(vert[0], Point2(0, 1));
    EXPECT_EQ(vert[1], Point2(0, 5));
}

TEST(ConvexHull, RandomPointsAllInsideAndCcw) {
    std::mt19937 gen(7);
    std::normal_distribution<double> nd;
    for (int n : {3, 5, 17, 100, 1000}) {
        std::vector<Point2> pts;
        for (int i = 0; i < n; ++i)
            pts.emplace_back(nd(gen), nd(gen));
        const auto hull = attn::convex_hull(pts);
        ASSERT_GE(hull.size(), 3u);
        EXPECT_GT(signed_area(hull), 0);
        for (const Point2& p : pts)
            EXPECT_TRUE(attn::point_in_hull(hull, p, 1e-12));
        // Strictly convex: every consecutive triple turns left.
        for (std::size_t i = 0; i < hull.size(); ++i) {
            const Point2 a = hull[i], b = hull[(i + 1) % hull.size()],
                         c = hull[(i + 2) % hull.size()];
            EXPECT_GT((b - a).x() * (c - a).y() - (b - a).y() * (c - a).x(), 0);
        }
    }
}

TEST(PointInHull, PolygonSegmentPointAndTolerance) {
    const std::vector<Point2> square = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    EXPECT_TRUE(attn::point_in_hull(square, {0.5, 0.5}));
    EXPECT_TRUE(attn::point_in_hull(square, {1, 0.5}));  // on an edge
    EXPECT_TRUE(attn::point_in_hull(square, {1, 1}));    // on a vertex
    EXPECT_FALSE(attn::point_in_hull(square, {1.01, 0.5}));
    EXPECT_TRUE(attn::point_in_hull(square, {1.01, 0.5}, 0.02));
    EXPECT_NEAR(attn::distance_to_hull(square, {2, 2}), std::sqrt(2.0), 1e-12);

    const std::vector<Point2> seg = {{0, 0}, {2, 0}};
    EXPECT_TRUE(attn::point_in_hull(seg, {1, 0}));
    EXPECT_FALSE(attn::point_in_hull(seg, {1, 1e-3}));
    EXPECT_TRUE(attn::point_in_hull(seg, {1, 1e-3}, 1e-2));
    EXPECT_FALSE(attn::point_in_hull(seg, {3, 0}));

    const std::vector<Point2> pt = {{1, 1}};
    EXPECT_TRUE(attn::point_in_hull(pt, {1, 1}));
    EXPECT_FALSE(attn::point_in_hull(pt, {1, 1.1}));
    EXPECT_FALSE(attn::point_in_hull({}, {0, 0}, 1e9));
}

TEST(Barycentric, TriangleReproducesPoint) {
    const Point2 a(0, 0), b(4, 0), c(0, 2);
    const auto l = attn::barycentric(a, b, c, {1, 0.5});
    ASSERT_TRUE(l.has_value());
    EXPECT_NEAR(l->sum(), 1.0, 1e-14);
    EXPECT_NEAR((*l)[0], 0.5, 1e-14);
    EXPECT_NEAR((*l)[1], 0.25, 1e-14);
    EXPECT_NEAR((*l)[2], 0.25, 1e-14);
    const Point2 back = (*l)[0] * a + (*l)[1] * b + (*l)[2] * c;
    EXPECT_NEAR((back - Point2(1, 0.5)).norm(), 0, 1e-14);
    const auto out = attn::barycentric(a, b, c, {-1, -1});
    ASSERT_TRUE(out.has_value());
    EXPECT_LT(out->minCoeff(), 0);
    EXPECT_FALSE(attn::barycentric(a, b, Point2(8, 0), {1, 0}).has_value());
}

TEST(Barycentric, PolygonMeanValueCoordinates) {
    std::mt19937 gen(3);
    std::normal_distribution<double> nd;
    std::uniform_real_distribution<double> ud(0, 1);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<Point2> pts;
        for (int i = 0; i < 12; ++i)
            pts.emplace_back(nd(gen), nd(gen));
        const auto hull = attn::convex_hull(pts);
        // A random convex combination of the vertices lies inside.
        Eigen::VectorXd w(static_cast<Eigen::Index>(hull.size()));
        for (auto& x : w)
            x = ud(gen);
        const Point2 p = attn::weighted_mean(hull, w);
        const Eigen::VectorXd l = attn::polygon_barycentric(hull, p);
        EXPECT_NEAR(l.sum(), 1.0, 1e-12);
        EXPECT_GE(l.minCoeff(), -1e-12);
        Point2 back = Point2::Zero();
        for (std::size_t i = 0; i < hull.size(); ++i)
            back += l[static_cast<Eigen::Index>(i)] * hull[i];
        EXPECT_NEAR((back - p).norm(), 0, 1e-12);
    }
}

TEST(Barycentric, PolygonOnVertexEdgeAndDegenerate) {
    const std::vector<Point2> square = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    Eigen::VectorXd l = attn::polygon_barycentric(square, {1, 1});
    EXPECT_NEAR(l[2], 1.0, 1e-14);
    EXPECT_NEAR(l.sum(), 1.0, 1e-14);
    l = attn::polygon_barycentric(square, {1, 0.25});
    EXPECT_NEAR(l[1], 0.75, 1e-14);
    EXPECT_NEAR(l[2], 0.25, 1e-14);
    l = attn::polygon_barycentric(square, {0.5, 0.5});
    for (int i = 0; i < 4; ++i)
        EXPECT_NEAR(l[i], 0.25, 1e-14);
    // Outside: still an affine combination reproducing the point, with a negative coordinate.
    l = attn::polygon_barycentric(square, {2, 0.5});
    EXPECT_NEAR(l.sum(), 1.0, 1e-12);
    EXPECT_LT(l.minCoeff(), 0);
    Point2 back = Point2::Zero();
    for (int i = 0; i < 4; ++i)
        back += l[i] * square[static_cast<std::size_t>(i)];
    EXPECT_NEAR((back - Point2(2, 0.5)).norm(), 0, 1e-12);

    l = attn::polygon_barycentric({{0, 0}, {4, 0}}, {1, 0});
    EXPECT_NEAR(l[0], 0.75, 1e-14);
    EXPECT_NEAR(l[1], 0.25, 1e-14);
    l = attn::polygon_barycentric({{3, 3}}, {3, 3});
    EXPECT_EQ(l.size(), 1);
    EXPECT_EQ(l[0], 1.0);
    EXPECT_THROW(attn::polygon_barycentric({}, {0, 0}), attn::ArgumentError);
}

TEST(WeightedMean, ValuesAndErrors) {
    const std::vector<Point2> pts = {{0, 0}, {2, 0}, {0, 4}};
    const Point2 m = attn::weighted_mean(pts, Eigen::Vector3d(1, 1, 2));
    EXPECT_NEAR(m.x(), 0.5, 1e-15);
    EXPECT_NEAR(m.y(), 2.0, 1e-15);
    EXPECT_THROW(attn::weighted_mean(pts, Eigen::Vector2d(1, 1)), attn::ArgumentError);
    EXPECT_THROW(attn::weighted_mean(pts, Eigen::Vector3d(0, 0, 0)), attn::ArgumentError);
    EXPECT_THROW(attn::weighted_mean({}, Eigen::VectorXd()), attn::ArgumentError);
}

}  // namespace
