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
#include <QToolTip>
#include <QtTest>
#include <cmath>
#include <limits>

#include "attn/interventions/patching.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/models/families.hpp"
#include "attn/scene/model_scene.hpp"
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
