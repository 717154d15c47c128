// QtTest: File ▸ Open of a batch result (`attnscope batch --analysis patch … -o OUT.npz`, the
// keys of docs/datasets.md) on the tiny GPT-2 (3 layers × 2 heads), with real events. The Batch
// tab shows the mean patching map; hovering a head reads mean ± sd, n with the numbers worked
// out here from the per-example values; the examples are listed from the largest effect down,
// by the total and, after a click on a head, by that head; clicking an example opens its run:
// the model, its tokens, and its patching run live with its corrupted prompt and answers.
// Malformed and partial files (a wrong shape, a missing aggregate, a NaN) are refused naming the
// file, the key and the shapes, the document and the batch on show kept; a model folder that is
// gone is said, the batch kept. GPL-3.0-or-later.
#include "batch_files.hpp"

using namespace batch_test;

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
        batch_ = batch_test::batchWindow(*w_);
        QVERIFY(batch_);
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
        // Back to the total with the keyboard, then every head in turn: each row's |effect| is
        // no smaller than the next one's.
        view->sortBox()->setFocus();
        for (int i = 0; i < kL * kH; ++i)
            QTest::keyClick(view->sortBox(), Qt::Key_Up);
        QCOMPARE(batch_->document()->sortLayer(), -1);
        QCOMPARE(listed(view->list()), (std::vector<int>{3, 2, 1, 0}));
        for (int cell = 0; cell < kL * kH; ++cell) {
            QTest::keyClick(view->sortBox(), Qt::Key_Down);
            const int l = batch_->document()->sortLayer(), h = batch_->document()->sortHead();
            QCOMPARE(l * kH + h, cell);
            const std::vector<int> order = listed(view->list());
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
            << QStringList{QStringLiteral("shape.npz"), QStringLiteral("aggregate/head_patch_mean"),
                           QStringLiteral("[3, 3]"), QStringLiteral("[4, 3, 2]")};
        QTest::newRow("no count") << write("nocount.npz",
                                           edited(patchBatch(m), "aggregate/count", {}))
                                  << QStringList{QStringLiteral("nocount.npz"),
                                                 QStringLiteral("aggregate/count")};
        QTest::newRow("no mean")
            << write("nomean.npz", edited(edited(patchBatch(m), "aggregate/head_patch_mean", {}),
                                          "aggregate/head_patch_std", {}))
            << QStringList{QStringLiteral("nomean.npz"),
                           QStringLiteral("aggregate/head_patch_mean")};
        QTest::newRow("NaN") << write("nan.npz", edited(patchBatch(m), "aggregate/head_patch_std",
                                                        attn::io::npy_bytes(sixNan, headShape)))
                             << QStringList{QStringLiteral("nan.npz"),
                                            QStringLiteral("aggregate/head_patch_std"),
                                            QStringLiteral("NaN"), QStringLiteral("[1, 0]")};
        // A file that says it is an attribute batch but holds none of its arrays.
        QTest::newRow("attribute")
            << write("attribute.npz", edited(patchBatch(m), "analysis", strings({"attribute"})))
            << QStringList{QStringLiteral("attribute.npz"), QStringLiteral("agreement_methods")};
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

    QString write(const char* name, const attn::io::NpzMembers& members) {
        return batch_test::writeBatch(files_, QString::fromLatin1(name), members);
    }

    QTemporaryDir model_, files_;
    std::unique_ptr<MainWindow> w_;
    fileio::BatchRuns* batch_ = nullptr;
};

QTEST_MAIN(BatchViewTest)
#include "batch_view_test.moc"
