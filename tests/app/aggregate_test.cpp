// Tests of block aggregation (max / mean) against brute force.
#include <QTest>
#include <cmath>
#include <limits>

#include "attn/attention/aggregate.hpp"
#include "attn/util/random.hpp"

namespace {

struct Case {
    int n, m, maxRows, maxCols;
};

// Reference: loop over every block and every cell, no cleverness.
double bruteBlock(const attn::Matrix& w, const attn::Matrix& s, int r, int c, int rf, int cf,
                  attn::Aggregation mode, bool* allMasked) {
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    int cells = 0, visible = 0;
    for (int i = r * rf; i < std::min<int>(int(w.rows()), (r + 1) * rf); ++i)
        for (int j = c * cf; j < std::min<int>(int(w.cols()), (c + 1) * cf); ++j) {
            ++cells;
            sum += w(i, j);
            if (std::isinf(s(i, j))) continue;
            ++visible;
            best = std::max(best, double(w(i, j)));
        }
    *allMasked = visible == 0;
    if (mode == attn::Aggregation::Mean) return sum / cells;
    return visible ? best : 0.0;
}

}  // namespace

class AggregateTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void factors() {
        QCOMPARE(attn::blockFactor(13, 300), 1);
        QCOMPARE(attn::blockFactor(300, 300), 1);
        QCOMPARE(attn::blockFactor(301, 300), 2);
        QCOMPARE(attn::blockFactor(4096, 300), 14);
        QCOMPARE(attn::blockFactor(5, 0), 5);
    }

    void identityWhenItFits() {
        attn::Rng rng(7);
        const attn::Matrix w = rng.normal_matrix(9, 11).cast<float>();
        const attn::AggregatedGrid g = attn::aggregate(w, nullptr, 9, 11, attn::Aggregation::Max);
        QCOMPARE(g.rows, 9);
        QCOMPARE(g.cols, 11);
        for (int i = 0; i < 9; ++i)
            for (int j = 0; j < 11; ++j) {
                QCOMPARE(g.at(i, j), double(w(i, j)));
                QVERIFY(!g.isMasked(i, j));
            }
    }

    void matchesBruteForce_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("maxRows");
        QTest::addColumn<int>("maxCols");
        QTest::newRow("even") << 64 << 64 << 16 << 16;
        QTest::newRow("ragged") << 100 << 77 << 13 << 9;
        QTest::newRow("rectangular") << 5 << 300 << 10 << 7;
        QTest::newRow("one cell") << 33 << 47 << 1 << 1;
        QTest::newRow("long") << 1000 << 1000 << 300 << 280;
    }

    void matchesBruteForce() {
        QFETCH(int, n);
        QFETCH(int, m);
        QFETCH(int, maxRows);
        QFETCH(int, maxCols);
        attn::Rng rng(std::uint64_t(n * 1000 + m));
        attn::Matrix w(n, m), s(n, m);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < m; ++j) {
                w(i, j) = float(rng.uniform());
                // Causal-like mask plus random holes, so some blocks are fully masked.
                const bool masked = j > i + 3 || rng.uniform() < 0.2;
                s(i, j) = masked ? -std::numeric_limits<float>::infinity() : 1.f;
                if (masked) w(i, j) = 0;
            }
        for (attn::Aggregation mode : {attn::Aggregation::Max, attn::Aggregation::Mean}) {
            const attn::AggregatedGrid g = attn::aggregate(w, &s, maxRows, maxCols, mode);
            QVERIFY(g.rows <= maxRows && g.cols <= maxCols);
            QCOMPARE(g.rows, (n + g.rowFactor - 1) / g.rowFactor);
            for (int r = 0; r < g.rows; ++r)
                for (int c = 0; c < g.cols; ++c) {
                    bool allMasked = false;
                    const double expected =
                        bruteBlock(w, s, r, c, g.rowFactor, g.colFactor, mode, &allMasked);
                    QCOMPARE(g.isMasked(r, c), allMasked);
                    if (std::abs(g.at(r, c) - expected) > 1e-9)
                        QFAIL(qPrintable(QStringLiteral("block (%1,%2): %3 vs brute force %4")
                                             .arg(r)
                                             .arg(c)
                                             .arg(g.at(r, c))
                                             .arg(expected)));
                }
            // The same mask given as allowed pairs (scenes without stored scores) agrees.
            attn::BoolMatrix visible(n, m);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < m; ++j)
                    visible(i, j) = std::isfinite(s(i, j));
            const attn::AggregatedGrid v = attn::aggregate(w, visible, maxRows, maxCols, mode);
            QCOMPARE(v.values, g.values);
            QCOMPARE(v.masked, g.masked);
        }
    }
};

QTEST_GUILESS_MAIN(AggregateTest)
#include "aggregate_test.moc"
