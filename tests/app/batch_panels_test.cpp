// QtTest: the Batch tab's census across the corpus and its panels' exports, with real events.
// A census batch (docs/datasets.md) of 3 texts on the tiny GPT-2: hovering a head reads every
// pattern's mean score over the examples that define it and every label's wins, a score no
// example defines reads "undefined", and the map shows the most frequent label or one
// pattern's mean. Each panel's Export… button writes its picture (PNG, SVG, PDF) and its
// numbers (.csv) through File ▸ Export's dialog: the mean, deviation and count per head, the
// examples' effects in rank order. GPL-3.0-or-later.
#include "batch_files.hpp"

using namespace batch_test;

class BatchPanelsTest : public QObject {
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
        QVERIFY(batch_test::exportThroughButton(view->mapPanel(), csv));
        QFile numbers(csv);
        QVERIFY(numbers.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(numbers.readAll());
        QVERIFY2(text.contains(QStringLiteral(",head_patch,mean,0,0,2.5,head 1,layer 1")),
                 qPrintable(text.left(400)));
        QVERIFY(text.contains(QStringLiteral(",head_patch,count,1,2,4,head 2,layer 3")));
        const QString png = files_.filePath(QStringLiteral("map.png"));
        QVERIFY(batch_test::exportThroughButton(view->mapPanel(), png));
        QVERIFY(!QImage(png).isNull());
        // The examples' effects in rank order, labelled with their line and prompt.
        const QString list = files_.filePath(QStringLiteral("examples.csv"));
        QVERIFY(batch_test::exportThroughButton(view->examplesPanel(), list));
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
            const QString figure =
                files_.filePath(QStringLiteral("examples.") + QString::fromLatin1(ext));
            QVERIFY(batch_test::exportThroughButton(view->examplesPanel(), figure));
            QVERIFY(QFileInfo(figure).size() > 0);
        }
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

QTEST_MAIN(BatchPanelsTest)
#include "batch_panels_test.moc"
