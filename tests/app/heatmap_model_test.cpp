// The heatmap model alone (issue #23 item 4): cells a job computes are the cells computed at
// once, the caller's thread computes nothing while the job runs, a newer request supersedes an
// older one, and regions are clamped to the matrix.
#include <QSignalSpy>
#include <QTest>

#include "attn/attention/aggregate.hpp"
#include "attn/scene/scene.hpp"
#include "model/heatmap_model.hpp"
#include "model/scheduler.hpp"

namespace {

SceneResultPtr computeShared(attn::Index n, int heads) {
    attn::SceneSpec s;
    std::string text;
    for (attn::Index i = 0; i < n; ++i)
        (text += "w") += std::to_string(i % 97) + ' ';
    s.text = text;
    s.heads = heads;
    s.d_model = 64;
    s.mask.kind = attn::MaskKind::Causal;
    return std::make_shared<const attn::SceneResult>(attn::compute_scene(s));
}

/// Every head at one budget.
std::vector<std::pair<int, QSize>> all(int heads, QSize budget) {
    std::vector<std::pair<int, QSize>> out;
    for (int h = 0; h < heads; ++h)
        out.emplace_back(h, budget);
    return out;
}

/// core's aggregation of head h's stored weights (independent of the model's path).
attn::AggregatedGrid reference(const attn::SceneResult& r, int h, QSize budget,
                               attn::Aggregation mode) {
    const attn::HeadResult& hr = r.heads[std::size_t(h)];
    const attn::Matrix masked = hr.masked_matrix();
    return attn::aggregate(hr.weights, &masked, budget.height(), budget.width(), mode);
}

}  // namespace

class HeatmapModelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void smallCellsAreComputedAtOnce() {
        HeatmapModel model;
        const SceneResultPtr r = computeShared(40, 4);
        model.setResult(r);
        QSignalSpy ready(&model, &HeatmapModel::cellsReady);
        // 4 heads × 40² = 6400 source cells, under the threshold: ready on return.
        QVERIFY(model.update(all(4, QSize(20, 20))));
        QCOMPARE(ready.count(), 0);
        for (int h = 0; h < 4; ++h) {
            QVERIFY(!model.pending(h));
            const attn::AggregatedGrid want =
                reference(*r, h, QSize(20, 20), attn::Aggregation::Max);
            QCOMPARE(model.cells(h).rowFactor, 2);  // 40 rows in 20 cells
            QCOMPARE(model.cells(h).values, want.values);
            QCOMPARE(model.cells(h).masked, want.masked);
        }
        // Unchanged budget and data: nothing recomputed (the version stays).
        const quint64 version = model.cellsVersion(0);
        QVERIFY(model.update(all(4, QSize(21, 21))));  // same block factors
        QCOMPARE(model.cellsVersion(0), version);
    }

    void largeCellsComeFromAJobWithTheSameNumbers() {
        const SceneResultPtr r = computeShared(96, 4);
        HeatmapModel now, later;
        now.setResult(r);
        later.setResult(r);
        later.setSyncCells(0);  // every computation is a job
        const QSize budget(30, 40);
        QVERIFY(now.update(all(4, budget)));
        QSignalSpy ready(&later, &HeatmapModel::cellsReady);
        QVERIFY(!later.update(all(4, budget)));
        for (int h = 0; h < 4; ++h) {
            QVERIFY(later.pending(h));
            // Nothing computed on this thread: no cells yet, only the job's to come.
            QCOMPARE(later.cellsVersion(h), quint64(0));
            QVERIFY(later.cells(h).values.empty());
        }
        later.waitForCells();
        QCOMPARE(ready.count(), 4);
        for (int h = 0; h < 4; ++h) {
            QVERIFY(!later.pending(h));
            QCOMPARE(later.cells(h).values, now.cells(h).values);
            QCOMPARE(later.cells(h).masked, now.cells(h).masked);
            QCOMPARE(later.span(h).largest, now.span(h).largest);
            // max over 96 / 40 → 3 rows and 96 / 30 → 4 columns a cell.
            QCOMPARE(later.cells(h).rowFactor, 3);
            QCOMPARE(later.cells(h).colFactor, 4);
        }
    }

    void aNewerRequestSupersedesTheOlder() {
        const SceneResultPtr r = computeShared(96, 2);
        HeatmapModel model;
        model.setResult(r);
        model.setSyncCells(0);
        const QSize budget(24, 24);
        QVERIFY(!model.update(all(2, budget)));
        model.setAggregation(attn::Aggregation::Mean);
        QVERIFY(!model.update(all(2, budget)));
        model.waitForCells();
        for (int h = 0; h < 2; ++h) {
            const attn::AggregatedGrid want = reference(*r, h, budget, attn::Aggregation::Mean);
            QCOMPARE(model.cells(h).values.size(), want.values.size());
            for (std::size_t i = 0; i < want.values.size(); ++i)
                QVERIFY(std::abs(model.cells(h).values[i] - want.values[i]) <= 1e-6);
        }
        // A result replaced while its cells are computed: the old job's cells never arrive.
        QVERIFY(!model.update({{0, QSize(12, 12)}}));
        const SceneResultPtr next = computeShared(48, 2);
        model.setResult(next);
        model.setSyncCells(HeatmapModel::kSyncCells);
        QVERIFY(model.update({{0, budget}}));
        model.waitForCells();
        Scheduler::instance().waitForIdle();
        QCOMPARE(model.cells(0).values,
                 reference(*next, 0, budget, attn::Aggregation::Mean).values);
    }

    void regionsAreClampedToTheMatrix() {
        HeatmapModel model;
        model.setResult(computeShared(40, 1));
        HeatmapViewport v;
        v.row = 35;
        v.rows = 10;  // past the 40 rows: moved back inside
        v.col = -3;
        v.cols = 100;  // wider than the matrix: all of it
        model.setRegion(0, v);
        QCOMPARE(model.region(0).row, attn::Index(30));
        QCOMPARE(model.region(0).rows, attn::Index(10));
        QCOMPARE(model.region(0).col, attn::Index(0));
        QCOMPARE(model.region(0).cols, attn::Index(40));
        QVERIFY(model.update({{0, QSize(64, 64)}}));
        QCOMPARE(model.cells(0).firstRow, attn::Index(30));
        QCOMPARE(model.cells(0).rows, 10);
        model.resetZoom(0);
        QVERIFY(model.region(0).whole());
    }
};

QTEST_GUILESS_MAIN(HeatmapModelTest)
#include "heatmap_model_test.moc"
