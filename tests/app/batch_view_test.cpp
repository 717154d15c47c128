// QtTest: File ▸ Open of a batch result (`attnscope batch --analysis patch … -o OUT.npz`, the
// keys of docs/datasets.md) on the tiny GPT-2 (3 layers × 2 heads), with real events. The Batch
// tab shows the mean patching map; hovering a head reads mean ± sd, n with the numbers worked
// out here from the per-example values; the examples are listed from the largest effect down,
// by the total and, after a click on a head, by that head; clicking an example opens its run:
// the model, its tokens, and its patching run live with its corrupted prompt and answers.
// Malformed and partial files (a wrong shape, a missing aggregate, a NaN) are refused naming the
// file, the key and the shapes, the document and the batch on show kept; a model folder that is
// gone is said, the batch kept. GPL-3.0-or-later.
#include <QHelpEvent>
#include <QTableWidget>
#include <QToolButton>
#include <QToolTip>
#include <QtTest>
#include <cmath>
#include <limits>

#include "attn/analysis/census.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/models/families.hpp"
#include "attn/scene/model_scene.hpp"
#include "export/export_dialog.hpp"
#include "interventions_window.hpp"
#include "io/batch_runs.hpp"
#include "io/file_controller.hpp"
#include "model/batch_document.hpp"
#include "model/compute_service.hpp"
#include "views/batch_view.hpp"
#include "views/cell_map.hpp"

namespace {

constexpr int kE = 4, kL = 3, kH = 2;

/// per_example/head_patch [E, L, H]: example e, layer l, head h.
const float kPatch[kE][kL][kH] = {
    {{1.f, 0.f}, {0.5f, 0.2f}, {0.f, 0.1f}},
    {{2.f, 0.f}, {-0.5f, 0.4f}, {0.f, 0.3f}},
    {{3.f, 1.f}, {0.25f, 0.6f}, {0.f, -0.2f}},
    {{4.f, 1.f}, {0.75f, 0.8f}, {0.f, 0.f}},
};

std::vector<std::byte> strings(const std::vector<std::string>& s) {
    return attn::io::npy_string_bytes(s);
}

/// What a patch batch of kPatch writes, with the aggregates worked out here (numpy's mean and
/// population std, in double).
attn::io::NpzMembers patchBatch(const std::string& model) {
    std::vector<float> per, mean, sd;
    for (int e = 0; e < kE; ++e)
        for (int l = 0; l < kL; ++l)
            for (int h = 0; h < kH; ++h)
                per.push_back(kPatch[e][l][h]);
    for (int l = 0; l < kL; ++l)
        for (int h = 0; h < kH; ++h) {
            double m = 0, v = 0;
            for (int e = 0; e < kE; ++e)
                m += kPatch[e][l][h] / double(kE);
            for (int e = 0; e < kE; ++e)
                v += (kPatch[e][l][h] - m) * (kPatch[e][l][h] - m) / double(kE);
            mean.push_back(float(m));
            sd.push_back(float(std::sqrt(v)));
        }
    const std::vector<std::uint64_t> perShape{kE, kL, kH}, headShape{kL, kH}, one{1};
    const std::vector<std::int32_t> count{kE}, lines{1, 2, 4, 5}, skipped{3};
    return {{"analysis", strings({"patch"})},
            {"model", strings({model})},
            {"options", strings({"on-error=skip"})},
            {"examples/line", attn::io::npy_i4_bytes(lines)},
            {"examples/clean",
             strings({"the cat sat", "a bird flew", "one two three", "the sun rose"})},
            {"examples/corrupt",
             strings({"the dog sat", "a fish flew", "one two four", "the moon rose"})},
            {"examples/answer", strings({"42", "7", "8", "9"})},
            {"examples/wrong", strings({"114", "70", "80", "90"})},
            {"skipped/line", attn::io::npy_i4_bytes(skipped)},
            {"skipped/reason", strings({"invalid JSON"})},
            {"per_example/head_patch", attn::io::npy_bytes(per, perShape)},
            {"aggregate/head_patch_mean", attn::io::npy_bytes(mean, headShape)},
            {"aggregate/head_patch_std", attn::io::npy_bytes(sd, headShape)},
            {"aggregate/count", attn::io::npy_i4_bytes(count, one)}};
}

/// A census batch of 3 examples on 3 layers × 2 heads: per_example scores with induction
/// undefined (NaN) in examples 1 and 2, and everywhere for layer 3, head 2; the aggregates as
/// docs/datasets.md defines them (over the defined values), worked out here.
attn::io::NpzMembers censusBatch(const std::string& model) {
    constexpr int e = 3, p = attn::kPatternCount;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> scores;
    std::vector<std::int32_t> labels;
    for (int x = 0; x < e; ++x)
        for (int l = 0; l < kL; ++l)
            for (int h = 0; h < kH; ++h) {
                for (int k = 0; k < p; ++k) {
                    const bool undefined = k == int(attn::HeadPattern::Induction) &&
                                           (x > 0 || (l == kL - 1 && h == kH - 1));
                    scores.push_back(undefined ? nan : float(0.1 * (x + 1) + 0.01 * (l * kH + h)));
                }
                // Layer 1, head 1: previous-token twice, mixed once.
                labels.push_back(l == 0 && h == 0 && x < 2 ? 0 : p);
            }
    std::vector<float> mean, sd;
    std::vector<std::int32_t> defined, wins;
    for (int l = 0; l < kL; ++l)
        for (int h = 0; h < kH; ++h) {
            for (int k = 0; k < p; ++k) {
                double sum = 0, sq = 0;
                int n = 0;
                for (int x = 0; x < e; ++x)
                    if (const float v = scores[std::size_t(((x * kL + l) * kH + h) * p + k)];
                        !std::isnan(v))
                        sum += v, ++n;
                const double m = n ? sum / n : nan;
                for (int x = 0; x < e; ++x)
                    if (const float v = scores[std::size_t(((x * kL + l) * kH + h) * p + k)];
                        !std::isnan(v))
                        sq += (v - m) * (v - m);
                mean.push_back(float(m));
                sd.push_back(n ? float(std::sqrt(sq / n)) : nan);
                defined.push_back(n);
            }
            for (int k = 0; k <= p; ++k) {
                int n = 0;
                for (int x = 0; x < e; ++x)
                    n += labels[std::size_t((x * kL + l) * kH + h)] == k;
                wins.push_back(n);
            }
        }
    const std::vector<std::uint64_t> per{e, kL, kH, p}, lab{e, kL, kH}, agg{kL, kH, p},
        counts{kL, kH, p + 1}, one{1};
    const std::vector<std::int32_t> count{e};
    return {{"analysis", strings({"census"})},
            {"model", strings({model})},
            {"examples/text", strings({"the cat sat", "the dog sat", "a cat ran"})},
            {"per_example/census_scores", attn::io::npy_bytes(scores, per)},
            {"per_example/census_label", attn::io::npy_i4_bytes(labels, lab)},
            {"aggregate/census_scores_mean", attn::io::npy_bytes(mean, agg)},
            {"aggregate/census_scores_std", attn::io::npy_bytes(sd, agg)},
            {"aggregate/census_scores_count", attn::io::npy_i4_bytes(defined, agg)},
            {"aggregate/census_label_counts", attn::io::npy_i4_bytes(wins, counts)},
            {"aggregate/count", attn::io::npy_i4_bytes(count, one)}};
}

/// MEMBERS with KEY replaced by BYTES (or removed, BYTES empty).
attn::io::NpzMembers edited(attn::io::NpzMembers members, const std::string& key,
                            std::vector<std::byte> bytes) {
    std::erase_if(members, [&](const auto& m) { return m.first == key; });
    if (!bytes.empty()) members.emplace_back(key, std::move(bytes));
    return members;
}

/// The example indices of LIST's rows, top to bottom.
std::vector<int> listed(QTableWidget* list) {
    std::vector<int> out;
    for (int r = 0; r < list->rowCount(); ++r)
        out.push_back(list->item(r, 0)->data(Qt::UserRole).toInt());
    return out;
}

/// Hovers MAP's cell (ROW, COLUMN) as the mouse does and returns the tooltip shown.
QString hover(CellMap* map, int row, int column) {
    const QPoint at = map->cellCentre(row, column);
    QTest::mouseMove(map, at);
    QHelpEvent help(QEvent::ToolTip, at, map->mapToGlobal(at));
    QApplication::sendEvent(map, &help);
    const QString text = QToolTip::isVisible() ? QToolTip::text() : QString();
    QToolTip::hideText();
    return text;
}

}  // namespace

class BatchViewTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(model_.isValid());
        QVERIFY(files_.isValid());
        QCOMPARE(test_support::writeTinyGpt2(model_.path()), QString());
    }

    void init() {
        w_ = std::make_unique<MainWindow>();
        QVERIFY(test_support::attachQuietModels(*w_));
        files()->setQuiet(true);
        batch_ = w_->findChild<fileio::BatchRuns*>();
        QVERIFY(batch_);
        w_->resize(1280, 800);
    }

    void cleanup() {
        Scheduler::instance().cancelAndWait(w_->findChild<PatchingView*>());
        w_.reset();
    }

    void opensAndHoverReadsMeanSdN() {
        const QString path = write("ok.npz", patchBatch(model_.path().toStdString()));
        const int steps = w_->scene()->undoStack()->count();
        QVERIFY2(files()->openFile(path), qPrintable(files()->lastError()));
        QCOMPARE(w_->tabs()->currentWidget(), static_cast<QWidget*>(batch_->view()));
        QCOMPARE(w_->scene()->undoStack()->count(), steps);  // no scene was replaced
        BatchView* view = batch_->view();
        QTRY_VERIFY(view->meanMap()->isVisible());
        QVERIFY(view->caption()->text().contains(path));
        QVERIFY(view->caption()->text().contains(model_.path()));
        QVERIFY(view->caption()->text().contains(QStringLiteral("3: invalid JSON")));
        // Layer 1, head 1: 1, 2, 3, 4 → mean 2.5, population sd √1.25 = 1.1180, n = 4.
        QCOMPARE(hover(view->meanMap(), 0, 0),
                 QStringLiteral("Layer 1, head 1: 2.5000 ± 1.1180, n = 4"));
        // Layer 2, head 1: 0.5, −0.5, 0.25, 0.75 → mean 0.25, sd √0.21875 = 0.4677.
        QCOMPARE(hover(view->sdMap(), 1, 0),
                 QStringLiteral("Layer 2, head 1: 0.2500 ± 0.4677, n = 4"));
        // Layer 3, head 2: 0.1, 0.3, −0.2, 0 → mean 0.05, sd √0.0325 = 0.1803.
        QCOMPARE(hover(view->meanMap(), 2, 1),
                 QStringLiteral("Layer 3, head 2: 0.0500 ± 0.1803, n = 4"));
        // The maps draw the means and deviations themselves.
        QCOMPARE(double(view->meanMap()->values()(0, 0)), 2.5);
        QVERIFY(std::abs(view->sdMap()->values()(1, 0) - 0.4677) < 1e-4);
    }

    void theListIsSortedByEffect() {
        QVERIFY(files()->openFile(write("sorted.npz", patchBatch(model_.path().toStdString()))));
        BatchView* view = batch_->view();
        QTRY_VERIFY(view->list()->isVisible());
        // Totals over the six heads: 1.8, 2.2, 4.65, 6.55; the largest |effect| first.
        QCOMPARE(listed(view->list()), (std::vector<int>{3, 2, 1, 0}));
        QCOMPARE(view->list()->item(0, 2)->text(), QStringLiteral("6.5500"));
        QCOMPARE(view->list()->item(3, 2)->text(), QStringLiteral("1.8000"));
        QCOMPARE(view->list()->item(0, 1)->text(), QStringLiteral("5"));  // its dataset line
        // A click on layer 2, head 1 sorts by it: 0.75, then 0.5 and −0.5 (a tie in size: the
        // earlier example first), then 0.25.
        QTest::mouseClick(view->meanMap(), Qt::LeftButton, {}, view->meanMap()->cellCentre(1, 0));
        QCOMPARE(listed(view->list()), (std::vector<int>{3, 0, 1, 2}));
        QCOMPARE(view->list()->item(2, 2)->text(), QStringLiteral("-0.5000"));
        QCOMPARE(view->sortBox()->currentText(), QStringLiteral("layer 2, head 1"));
        // Each row's effect is no larger than the one above it, for every head.
        for (int cell = 0; cell < kL * kH; ++cell) {
            view->sortBox()->setFocus();
            QTest::keyClick(view->sortBox(), Qt::Key_Down);
            const std::vector<int> order = listed(view->list());
            const int l = batch_->document()->sortLayer(), h = batch_->document()->sortHead();
            for (std::size_t r = 1; r < order.size(); ++r)
                QVERIFY(std::abs(kPatch[order[r - 1]][l][h]) >= std::abs(kPatch[order[r]][l][h]));
        }
    }

    void clickingAnExampleOpensItsRun() {
        QVERIFY(files()->openFile(write("run.npz", patchBatch(model_.path().toStdString()))));
        BatchView* view = batch_->view();
        QTRY_VERIFY(view->list()->isVisible());
        const std::vector<int> order = listed(view->list());
        const int row = int(std::find(order.begin(), order.end(), 0) - order.begin());
        auto* patching = w_->findChild<PatchingView*>();
        QSignalSpy finished(patching, &PatchingView::finished);
        QTest::mouseClick(view->list()->viewport(), Qt::LeftButton, {},
                          view->list()->visualItemRect(view->list()->item(row, 3)).center());
        QVERIFY2(batch_->lastError().isEmpty(), qPrintable(batch_->lastError()));
        QVERIFY(w_->scene()->spec().is_model());
        QCOMPARE(QString::fromStdString(w_->scene()->spec().text), QStringLiteral("the cat sat"));
        QTRY_VERIFY(finished.count() > 0);
        QCOMPARE(patching->result().heads.rows(), kL);
        // The run's tokens are the tokenizer's of the example's prompt, read here on their own.
        const attn::model::ModelFolder folder =
            attn::model::open_folder(model_.path().toStdString());
        const std::vector<std::int32_t> clean = folder.tokenizer->encode("the cat sat");
        QCOMPARE(patching->patchSpec().clean, clean);
        QCOMPARE(patching->patchSpec().corrupt, folder.tokenizer->encode("the dog sat"));
        QCOMPARE(patching->patchSpec().answer, 42);
        QCOMPARE(patching->patchSpec().wrong, 114);
        test_support::settleAll(w_->computeService());
        const std::vector<std::string> want = folder.tokenizer->display_tokens(clean);
        QCOMPARE(w_->result()->q_tokens, want);
        QCOMPARE(w_->tabs()->currentWidget(),
                 static_cast<QWidget*>(w_->findChild<InterventionsTab*>()));
        // The batch stays open in its tab.
        QCOMPARE(batch_->document()->examples(), kE);
    }

    void aMissingModelFolderIsSaid() {
        const QString gone = files_.filePath(QStringLiteral("no-such-model"));
        QVERIFY(files()->openFile(write("gone.npz", patchBatch(gone.toStdString()))));
        BatchView* view = batch_->view();
        QTRY_VERIFY(view->list()->isVisible());
        const attn::SceneSpec before = w_->scene()->spec();
        QTest::mouseClick(view->list()->viewport(), Qt::LeftButton, {},
                          view->list()->visualItemRect(view->list()->item(0, 3)).center());
        QVERIFY(batch_->lastError().contains(gone));
        QVERIFY(batch_->lastError().contains(QStringLiteral("does not exist")));
        QVERIFY(batch_->lastError().contains(QStringLiteral("gone.npz")));
        QVERIFY(view->status()->isVisible());
        QCOMPARE(view->status()->text(), batch_->lastError());
        QCOMPARE(w_->tabs()->currentWidget(), static_cast<QWidget*>(view));
        QVERIFY(w_->scene()->spec() == before);
    }

    void theCensusAcrossTheCorpus() {
        QVERIFY(files()->openFile(write("census.npz", censusBatch(model_.path().toStdString()))));
        BatchView* view = batch_->view();
        QTRY_VERIFY(view->censusMap()->isVisible());
        QVERIFY(!view->meanMap()->isVisible());  // a census has no per-head map of its own
        // Layer 1, head 1: previous-token wins 2 of 3, mixed 1; the scores 0.1, 0.2, 0.3 →
        // mean 0.2; induction defined in example 0 only (0.1).
        const QString tip = hover(view->censusMap(), 0, 0);
        QVERIFY2(tip.contains(QStringLiteral("previous-token: mean score 0.2000 (n = 3), label of "
                                             "2 example(s)")),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("induction: mean score 0.1000 (n = 1)")),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("mixed: label of 1 example(s)")), qPrintable(tip));
        QCOMPARE(view->censusMap()->texts().value(0), QStringLiteral("previous-token"));
        QVERIFY(std::abs(view->censusMap()->values()(0, 0) - 2.0 / 3.0) < 1e-6);
        // Layer 3, head 2: induction is defined in no example.
        QVERIFY(hover(view->censusMap(), 2, 1)
                    .contains(QStringLiteral("induction: mean score undefined (n = 0)")));
        // Showing one pattern's mean: layer 2, head 2 (cell 3) is 0.2 + 0.03.
        view->censusBox()->setFocus();
        QTest::keyClick(view->censusBox(), Qt::Key_Down);
        QCOMPARE(view->censusMap()->title(), QStringLiteral("Mean previous-token score over the "
                                                            "examples"));
        QVERIFY(std::abs(view->censusMap()->values()(1, 1) - 0.23) < 1e-6);
    }

    void eachPanelExports() {
        QVERIFY(files()->openFile(write("export.npz", patchBatch(model_.path().toStdString()))));
        BatchView* view = batch_->view();
        QTRY_VERIFY(view->list()->isVisible());
        // The map panel's numbers and picture, through its Export… button and the dialog.
        const QString csv = files_.filePath(QStringLiteral("map.csv"));
        QVERIFY(exportThroughButton(view->mapPanel(), csv));
        QFile numbers(csv);
        QVERIFY(numbers.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(numbers.readAll());
        QVERIFY2(text.contains(QStringLiteral(",head_patch,mean,0,0,2.5,head 1,layer 1")),
                 qPrintable(text.left(400)));
        QVERIFY(text.contains(QStringLiteral(",head_patch,count,1,2,4,head 2,layer 3")));
        const QString png = files_.filePath(QStringLiteral("map.png"));
        QVERIFY(exportThroughButton(view->mapPanel(), png));
        QVERIFY(!QImage(png).isNull());
        // The examples' effects in rank order, labelled with their line and prompt.
        const QString list = files_.filePath(QStringLiteral("examples.csv"));
        QVERIFY(exportThroughButton(view->examplesPanel(), list));
        QFile rows(list);
        QVERIFY(rows.open(QIODevice::ReadOnly));
        const QString listed = QString::fromUtf8(rows.readAll());
        // Rank 0 is line 5 (total 6.55), rank 3 line 1 (1.8); the sums are of float32 values.
        const auto rowOf = [&](const QString& label) {
            for (const QString& line : listed.split(QLatin1Char('\n')))
                if (line.contains(label)) return line;
            return QString();
        };
        QVERIFY2(rowOf(QStringLiteral("5: the sun rose")).contains(QStringLiteral(",0,6.55")),
                 qPrintable(listed.left(600)));
        QVERIFY(rowOf(QStringLiteral("1: the cat sat")).contains(QStringLiteral(",3,1.8")));
        for (const char* ext : {"svg", "pdf"}) {
            const QString figure = files_.filePath(QStringLiteral("examples.") + ext);
            QVERIFY(exportThroughButton(view->examplesPanel(), figure));
            QVERIFY(QFileInfo(figure).size() > 0);
        }
    }

    void malformedFilesAreRefused_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("named");
        const std::string m = model_.path().toStdString();
        const std::vector<std::uint64_t> wrong{3, 3};
        const std::vector<float> nine(9, 0.f);
        std::vector<float> sixNan(6, 0.5f);
        sixNan[2] = std::numeric_limits<float>::quiet_NaN();
        const std::vector<std::uint64_t> headShape{kL, kH};
        QTest::newRow("wrong shape")
            << write("shape.npz",
                     edited(edited(patchBatch(m), "aggregate/head_patch_mean",
                                   attn::io::npy_bytes(nine, wrong)),
                            "aggregate/head_patch_std", attn::io::npy_bytes(nine, wrong)))
            << QStringList{"shape.npz", "aggregate/head_patch_mean", "[3, 3]", "[4, 3, 2]"};
        QTest::newRow("no count") << write("nocount.npz",
                                           edited(patchBatch(m), "aggregate/count", {}))
                                  << QStringList{"nocount.npz", "aggregate/count"};
        QTest::newRow("no mean")
            << write("nomean.npz", edited(edited(patchBatch(m), "aggregate/head_patch_mean", {}),
                                          "aggregate/head_patch_std", {}))
            << QStringList{"nomean.npz", "aggregate/head_patch_mean"};
        QTest::newRow("NaN") << write("nan.npz", edited(patchBatch(m), "aggregate/head_patch_std",
                                                        attn::io::npy_bytes(sixNan, headShape)))
                             << QStringList{"nan.npz", "aggregate/head_patch_std", "NaN", "[1, 0]"};
    }

    void malformedFilesAreRefused() {
        QFETCH(QString, file);
        QFETCH(QStringList, named);
        QVERIFY(files()->openFile(write("good.npz", patchBatch(model_.path().toStdString()))));
        const QString shown = batch_->document()->path();
        const attn::SceneSpec before = w_->scene()->spec();
        const int steps = w_->scene()->undoStack()->count();
        QVERIFY(!files()->openFile(file));
        for (const QString& n : named)
            QVERIFY2(files()->lastError().contains(n),
                     qPrintable(n + QStringLiteral(" | ") + files()->lastError()));
        QVERIFY(files()->lastError().contains(QStringLiteral("unchanged")));
        QCOMPARE(batch_->document()->path(), shown);
        QVERIFY(w_->scene()->spec() == before);
        QCOMPARE(w_->scene()->undoStack()->count(), steps);
    }

  private:
    /// Clicks PANEL's Export… button, types PATH into the dialog and presses Enter; whether the
    /// file was written.
    bool exportThroughButton(QWidget* panel, const QString& path) {
        auto* button = panel->findChild<QToolButton*>();
        if (!button) return false;
        QFile::remove(path);
        bool answered = false;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<ExportDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            test_support::retype(dialog->pathEdit(), path);
            QTest::keyClick(dialog->pathEdit(), Qt::Key_Return);
            answered = true;
        });
        QTest::mouseClick(button, Qt::LeftButton);
        return answered && QFileInfo::exists(path);
    }

    fileio::FileController* files() { return w_->findChild<fileio::FileController*>(); }

    QString write(const QString& name, const attn::io::NpzMembers& members) {
        const QString path = files_.filePath(name);
        attn::io::write_npz(path.toStdString(), members);
        return path;
    }

    QTemporaryDir model_, files_;
    std::unique_ptr<MainWindow> w_;
    fileio::BatchRuns* batch_ = nullptr;
};

QTEST_MAIN(BatchViewTest)
#include "batch_view_test.moc"
