// QtTest: the Controls dock's "Scale by 1/√d_k" says what an encoder–decoder's run did. Its
// weights cannot be rescaled, so the box is greyed; it reads ticked for a tiny Marian (which
// scales its scores), unticked for a tiny T5 (which does not), and follows the Translation
// dock's own Scale choice once the run is made again with it — never the greyed blank of a
// file's weights, which do not say. GPL-3.0-or-later.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "marian_folder.hpp"
#include "tiny_folders.hpp"
#include "widgets/controls_dock.hpp"

namespace {

/// "" when W's scale box is greyed and reads CHECKED (no third state), else what it reads.
/// W shown with the encoder–decoder folder DIR open: its model controller, or null.
fileio::ModelController* open(MainWindow& w, const QString& dir) {
    fileio::ModelController* models = test_support::attachQuietModels(w);
    if (!models || !models->openModel(dir)) return nullptr;
    test_support::settleAll(w.computeService());
    return models;
}

QString greyedAndReads(MainWindow& w, bool checked) {
    QCheckBox* box = w.controlsDock()->scaleBox();
    const Qt::CheckState want = checked ? Qt::Checked : Qt::Unchecked;
    if (box->isEnabled() || box->checkState() != want)
        return QStringLiteral("enabled %1, state %2 (want %3)")
            .arg(box->isEnabled())
            .arg(int(box->checkState()))
            .arg(int(want));
    if (!box->toolTip().contains(QStringLiteral("encoder–decoder")))
        return QStringLiteral("tip: ") + box->toolTip();
    return {};
}

}  // namespace

class Seq2SeqScaleBoxTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void marianScalesThenNot() {
        QTemporaryDir dir;
        const QString written = test_support::writeMarianFolder(dir.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
        MainWindow w;
        fileio::ModelController* models = open(w, dir.path());
        QVERIFY(models);
        QVERIFY(w.scene()->spec().is_loaded());
        QCOMPARE(greyedAndReads(w, true), QString());
        // The Translation dock's "off", then Show attention: the run again, unscaled.
        fileio::Seq2SeqDock* dock = models->seq2seqDock();
        QSignalSpy finished(dock, &fileio::Seq2SeqDock::finished);
        dock->scaleBox()->setCurrentIndex(2);
        QTest::mouseClick(dock->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        test_support::settleAll(w.computeService());
        QCOMPARE(greyedAndReads(w, false), QString());
    }

    void t5DoesNotScale() {
        QTemporaryDir dir;
        const QString written = test_support::writeT5Folder(dir.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
        MainWindow w;
        QVERIFY(open(w, dir.path()));
        QCOMPARE(greyedAndReads(w, false), QString());
    }
};

QTEST_MAIN(Seq2SeqScaleBoxTest)
#include "seq2seq_scale_box_test.moc"
