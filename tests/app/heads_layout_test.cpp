// QtTest with real widgets and events, at 1280×800 (and at 192 dpi: ctest app.heads_layout_test_2x
// runs it with QT_SCALE_FACTOR=2). Issue #26 item 8: eight heads with long tokens use the width
// (two columns or more), every head of the grid has the same plot rect, and no two key labels
// of a head overlap. Item 15: hovering a cell shows its numbers in the readout line, not in a
// tooltip over the neighbour, and the next click on the neighbouring head selects it. Issue #24
// item 5: heads of one key/value group sit together, a gap and a label between groups — on a
// synthetic GQA scene and on a tiny Llama folder in Hugging Face layout.
#include <QHelpEvent>
#include <QLabel>
#include <QPolygonF>
#include <QProcess>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/model_controller.hpp"
#include "views/elided_label.hpp"

namespace {

/// The eight heads of a sentence of long words (labels elided, rotated).
attn::SceneSpec longTokens(int heads, int kvHeads = 0) {
    attn::SceneSpec s;
    s.text =
        "internationalization counterrevolutionaries extraordinarily "
        "incomprehensibilities electroencephalography uncharacteristically "
        "telecommunications disproportionately the cat sat";
    s.heads = heads;
    s.kv_heads = kvHeads;
    s.d_model = 64;
    return s;
}

/// The key labels of a head as drawn: QCustomPlot puts a bottom label rotated by a negative
/// angle with its end at its tick.
std::vector<QPolygonF> keyLabels(HeadHeatmap* head) {
    const QCPAxis* axis = head->xAxis;
    const QFontMetricsF fm(axis->tickLabelFont());
    const double angle = axis->tickLabelRotation();
    const double y = head->axisRect()->rect().bottom() + axis->tickLabelPadding();
    std::vector<QPolygonF> out;
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
        if (!axis->range().contains(ticks[i])) continue;
        const double w = fm.horizontalAdvance(labels[i]), h = fm.height();
        QTransform t;
        t.translate(axis->coordToPixel(ticks[i]), y);
        t.rotate(angle);
        // Shrunk by half a pixel: labels that only touch do not collide.
        out.push_back(t.map(QPolygonF(QRectF(-w + 0.5, -h / 2 + 0.5, w - 1, h - 1))));
    }
    return out;
}

/// Heads of the grid placed side by side on one row: (left head, right head) pairs.
std::vector<std::pair<HeadHeatmap*, HeadHeatmap*>> rowNeighbours(HeatmapGrid* grid) {
    std::vector<std::pair<HeadHeatmap*, HeadHeatmap*>> out;
    for (int a = 0; a + 1 < grid->headCount(); ++a) {
        HeadHeatmap *l = grid->head(a), *r = grid->head(a + 1);
        if (l->y() == r->y() && r->x() > l->x()) out.emplace_back(l, r);
    }
    return out;
}

void showSpec(MainWindow& w, const attn::SceneSpec& spec) {
    test_support::showWindow(w);
    w.scene()->setSpec(spec, QStringLiteral("heads"));
    test_support::settleAll(w.computeService());
}

/// Writes a tiny Llama folder (4 query heads, 2 key/value heads) with the core tests' numpy
/// script and a byte-level tokenizer.json; returns its path or an empty string.
QString tinyLlama(const QTemporaryDir& dir) {
    const QString folder = dir.filePath(QStringLiteral("llama"));
    const QString script = QStringLiteral(
        "import json, os, sys\n"
        "sys.path.insert(0, sys.argv[2])\n"
        "import numpy as np\n"
        "from llama_tiny import config, weights, write_model\n"
        "from gpt2_tiny import byte_symbols\n"
        "sym = byte_symbols()\n"
        "c = config(heads=4, kv_heads=2, vocab=256)\n"
        "write_model(sys.argv[1], weights(np.random.default_rng(5), c), c)\n"
        "tok = {'version': '1.0', 'added_tokens': [], 'normalizer': None,\n"
        "       'pre_tokenizer': {'type': 'ByteLevel', 'add_prefix_space': False,\n"
        "                         'trim_offsets': True, 'use_regex': True},\n"
        "       'post_processor': None, 'decoder': {'type': 'ByteLevel'},\n"
        "       'model': {'type': 'BPE', 'vocab': {sym[b]: b for b in range(256)},\n"
        "                 'merges': []}}\n"
        "json.dump(tok, open(os.path.join(sys.argv[1], 'tokenizer.json'), 'w'))\n");
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"),
            {QStringLiteral("-c"), script, folder, QStringLiteral(ATTN_CORE_TESTS_DIR)});
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        qWarning("%s", p.readAllStandardError().constData());
        return {};
    }
    return folder;
}

/// Heads h and h + 1 of one row: the gap between them is the spacing inside a key/value group
/// and at least a group gap between two groups.
void checkGroupGaps(HeatmapGrid* grid) {
    const SceneResultPtr r = grid->result();
    const auto pairs = rowNeighbours(grid);
    QVERIFY(!pairs.empty());
    int between = 0;
    for (const auto& [l, rt] : pairs) {
        const int gap = rt->x() - (l->x() + l->width());
        const bool sameGroup = r->kv_group_of(l->head()) == r->kv_group_of(rt->head());
        if (sameGroup) {
            QVERIFY2(
                gap >= HeatmapGrid::kSpacing && gap <= HeatmapGrid::kSpacing + 2,
                qPrintable(
                    QStringLiteral("heads %1, %2: %3 px").arg(l->head()).arg(rt->head()).arg(gap)));
        } else {
            ++between;
            QVERIFY2(gap >= HeatmapGrid::kSpacing + HeatmapGrid::kGroupGap,
                     qPrintable(QStringLiteral("groups at heads %1, %2: %3 px")
                                    .arg(l->head())
                                    .arg(rt->head())
                                    .arg(gap)));
        }
    }
    // Every group is labelled above its heads, with the heads it holds (counted from 1).
    const int groups = int(r->kv_group_count()), size = grid->headCount() / groups;
    QCOMPARE(int(grid->groupLabels().size()), groups);
    for (int g = 0; g < groups; ++g) {
        QLabel* label = grid->groupLabels()[std::size_t(g)];
        QVERIFY(label->isVisible());
        QCOMPARE(
            label->text(),
            QStringLiteral("KV %1 · heads %2–%3").arg(g + 1).arg(g * size + 1).arg((g + 1) * size));
        HeadHeatmap* firstHead = grid->head(g * size);
        QVERIFY(label->geometry().bottom() < firstHead->y());
        QVERIFY(label->x() <= firstHead->x() + 1);
    }
    // Groups side by side on one row leave a gap between them; stacked, a label row does.
    if (between == 0) QVERIFY(grid->groupLabels()[1]->y() > grid->head(size - 1)->y());
}

}  // namespace

class HeadsLayoutTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void eightHeadsUseTheWidthAtOneSizeWithLabelsApart() {
        MainWindow w;
        showSpec(w, longTokens(8));
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(grid->headCount(), 8);
        QSet<int> columns;
        for (int h = 0; h < 8; ++h)
            columns.insert(grid->head(h)->x());
        qInfo("heads area %d × %d px, %d columns, heads %d × %d", grid->width(), grid->height(),
              int(columns.size()), grid->head(0)->width(), grid->head(0)->height());
        QVERIFY2(columns.size() >= 2, qPrintable(QString::number(columns.size())));
        const QSize size = grid->head(0)->size();
        const QSize plot = grid->head(0)->axisRect()->rect().size();
        for (int h = 0; h < 8; ++h) {
            HeadHeatmap* head = grid->head(h);
            head->replot(QCustomPlot::rpImmediateRefresh);
            QCOMPARE(head->size(), size);
            QCOMPARE(head->axisRect()->rect().size(), plot);
            const std::vector<QPolygonF> labels = keyLabels(head);
            QVERIFY(labels.size() >= 2);
            for (std::size_t a = 0; a < labels.size(); ++a)
                for (std::size_t b = a + 1; b < labels.size(); ++b)
                    QVERIFY2(!labels[a].intersects(labels[b]),
                             qPrintable(QStringLiteral("head %1: labels %2 and %3 overlap")
                                            .arg(h)
                                            .arg(a)
                                            .arg(b)));
            // An elided label says so; the whole token is what hovering it shows.
            for (const QString& label : head->xAxis->tickVectorLabels())
                QVERIFY(label.size() <= 11 || label.contains(QStringLiteral(" ·")));
        }
        HeadHeatmap* head = grid->head(0);
        const QPoint below(int(head->xAxis->coordToPixel(0)),
                           head->axisRect()->rect().bottom() + 8);
        QTest::mouseMove(head, below);
        QVERIFY2(grid->readout()->fullText().contains(QStringLiteral("internationalization")),
                 qPrintable(grid->readout()->fullText()));
    }

    void hoverShowsNoTooltipAndTheNextClickSelectsTheNeighbour() {
        MainWindow w;
        showSpec(w, longTokens(4));
        HeatmapGrid* grid = w.heatmapGrid();
        const auto pairs = rowNeighbours(grid);
        QVERIFY(!pairs.empty());
        HeadHeatmap *left = pairs[0].first, *right = pairs[0].second;
        // The last key of the left head's third query: next to the neighbour.
        const int keys = left->columnCount();
        const QPoint at(int(left->xAxis->coordToPixel(keys - 1)),
                        int(left->yAxis->coordToPixel(2)));
        QTest::mouseMove(left, at);
        QHelpEvent rest(QEvent::ToolTip, at, left->mapToGlobal(at));
        QCoreApplication::sendEvent(left, &rest);
        QVERIFY(!QToolTip::isVisible());
        const double weight = w.result()->heads[std::size_t(left->head())].weights(2, keys - 1);
        QVERIFY2(grid->readout()->fullText().contains(QString::number(weight, 'f', 4)),
                 qPrintable(grid->readout()->fullText()));
        // The next click, on the neighbouring head's cell (query 4, key 1), selects it there.
        const QPoint there(int(right->xAxis->coordToPixel(1)), int(right->yAxis->coordToPixel(4)));
        QTest::mouseMove(right, there);
        QTest::mouseClick(right, Qt::LeftButton, {}, there);
        QCOMPARE(w.scene()->selection().head, right->head());
        QCOMPARE(w.scene()->selection().query, 4);
        QCOMPARE(w.scene()->selection().key, 1);
    }

    void keyValueGroupsAreSpacedAndLabelled() {
        MainWindow w;
        showSpec(w, longTokens(8, 2));
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(w.result()->kv_group_count(), attn::Index(2));
        checkGroupGaps(grid);
        // Multi-head attention: no groups, no labels.
        w.scene()->setSpec(longTokens(8), QStringLiteral("mha"));
        test_support::settleAll(w.computeService());
        QVERIFY(grid->groupLabels().empty());
        for (const auto& [l, r] : rowNeighbours(grid))
            QVERIFY(r->x() - (l->x() + l->width()) <= HeatmapGrid::kSpacing + 2);
    }

    void llamaFolderGroupsItsHeads() {
        QTemporaryDir dir;
        const QString folder = tinyLlama(dir);
        QVERIFY(!folder.isEmpty());
        MainWindow w;
        fileio::attachDataIo(&w, {});
        auto* models = w.findChild<fileio::ModelController*>();
        models->setQuiet(true);
        test_support::showWindow(w);
        QVERIFY2(models->openModel(folder), qPrintable(models->lastError()));
        test_support::settleAll(w.computeService());
        QVERIFY(w.result());
        QCOMPARE(w.heatmapGrid()->headCount(), 4);
        QCOMPARE(w.result()->kv_group_count(), attn::Index(2));
        checkGroupGaps(w.heatmapGrid());
    }
};

QTEST_MAIN(HeadsLayoutTest)
#include "heads_layout_test.moc"
