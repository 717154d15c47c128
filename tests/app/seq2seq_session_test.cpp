// QtTest: a session saved while an encoder–decoder runs reopens that run. A tiny random Marian
// folder (tests/cli/seq2seq_tiny.py) opens from Model ▸ Open Model; a source and a target are
// typed into the Translation dock with two heads to ablate and its scaling switched off; the
// Loaded data dock shows the encoder's second layer; File ▸ Save writes the run (not its
// attention). A fresh window opens the session: the Translation dock holds the same folder,
// sentences, ablations and scaling, the scene shows the encoder's second layer, and its weights
// are core's teacher-forced run of the same controls (which differ from the plain run's there).
// GPL-3.0-or-later.
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "attn/scene/seq2seq_scene.hpp"
#include "io/data_dock.hpp"
#include "io/file_controller.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "marian_folder.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"

namespace {

const QString kSource = QStringLiteral("the cat sat on the mat");
const QString kTarget = QStringLiteral("die katze sass auf der matte");
const QString kAblate = QStringLiteral("cross.0.1, encoder.0.2");

using test_support::writeMarianFolder;

/// Types TEXT over what EDIT holds, as a user does.
void typeOver(QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, text);
}

/// The largest difference between the heads of the layer SPEC shows and WANT's.
double worst(const attn::SceneSpec& spec, const std::vector<attn::Matrix>& want) {
    const attn::AttentionComponent& c = spec.data->components.at(std::size_t(spec.component));
    double out = 0;
    for (std::size_t h = 0; h < want.size(); ++h) {
        const attn::Matrix& got = c.mats.at(std::size_t(spec.layer * c.heads) + h);
        if (got.rows() != want[h].rows() || got.cols() != want[h].cols()) return 1e9;
        out = std::max(out, double((got - want[h]).cwiseAbs().maxCoeff()));
    }
    return out;
}

}  // namespace

class Seq2SeqSessionTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSeq2SeqSessionTest"));
    }

    void aSavedTranslationRunReopensWithItsSentencesAndAblations() {
        QTemporaryDir tmp;
        const QString dir = tmp.path() + QStringLiteral("/opus-tiny");
        QCOMPARE(writeMarianFolder(dir), QString());
        const QString session = tmp.path() + QStringLiteral("/run.attnscope");
        {
            MainWindow w;
            fileio::ModelController* models = test_support::attachQuietModels(w);
            QVERIFY(models);
            auto* files = w.findChild<fileio::FileController*>();
            files->setQuiet(true);
            QVERIFY2(models->openModel(dir), qPrintable(models->lastError()));
            test_support::settleAll(w.computeService());
            fileio::Seq2SeqDock* dock = models->seq2seqDock();
            typeOver(dock->sourceEdit(), kSource);
            typeOver(dock->targetEdit(), kTarget);
            typeOver(dock->ablateEdit(), kAblate);
            dock->scaleBox()->setFocus();
            QTest::keyClick(dock->scaleBox(), Qt::Key_End);  // "off"
            QSignalSpy finished(dock, &fileio::Seq2SeqDock::finished);
            QTest::mouseClick(dock->runButton(), Qt::LeftButton);
            QVERIFY(finished.wait(60000));
            QVERIFY2(!dock->statusLabel()->styleSheet().contains(QStringLiteral("b00020")),
                     qPrintable(dock->statusLabel()->text()));
            // The encoder's second layer, picked in the Loaded data dock.
            auto* data = w.findChild<fileio::DataDock*>();
            QVERIFY(data);
            data->componentBox()->setFocus();
            QTest::keyClick(data->componentBox(), Qt::Key_Home);
            QCOMPARE(w.scene()
                         ->spec()
                         .data->components.at(std::size_t(w.scene()->spec().component))
                         .name,
                     std::string("Encoder"));
            data->layerBox()->setFocus();
            QTest::keyClick(data->layerBox(), Qt::Key_Up);
            QCOMPARE(w.scene()->spec().layer, attn::Index(1));
            QString error;
            QVERIFY2(files->saveTo(session, &error), qPrintable(error));
            test_support::settleAll(w.computeService());
        }
        // The run, not its attention: the folder, the component and both sentences.
        QFile saved(session);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray text = saved.readAll();
        QVERIFY2(text.contains("\"component\": \"encoder\""), text.constData());
        QVERIFY2(text.contains("[\"encoder\", 0, 2]"), text.constData());
        QVERIFY(!text.contains("\"embedded\""));

        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        auto* files = w.findChild<fileio::FileController*>();
        files->setQuiet(true);
        QVERIFY2(files->openFile(session), qPrintable(files->lastError()));
        test_support::settleAll(w.computeService());
        QVERIFY(models->showsSeq2Seq());
        fileio::Seq2SeqDock* dock = models->seq2seqDock();
        QVERIFY(dock->isVisible());
        QCOMPARE(QString::fromStdString(dock->folder()->dir), dir);
        QCOMPARE(dock->sourceEdit()->text(), kSource);
        QCOMPARE(dock->targetEdit()->text(), kTarget);
        QCOMPARE(dock->ablateEdit()->text(), kAblate);
        QCOMPARE(dock->scaleBox()->currentIndex(), 2);
        const attn::SceneSpec spec = w.scene()->spec();
        QCOMPARE(spec.data->components.at(std::size_t(spec.component)).name,
                 std::string("Encoder"));
        QCOMPARE(spec.layer, attn::Index(1));
        QCOMPARE(QString::fromStdString(spec.text), kSource);

        // Core's run of the same sentences and controls is what the scene shows; the plain run
        // differs there (encoder.0.2 feeds the second layer).
        const attn::model::Seq2SeqFolder folder =
            attn::model::open_seq2seq(QFile::encodeName(dir).toStdString());
        const std::vector<std::int32_t> source = folder.source->encode(kSource.toStdString()),
                                        target =
                                            attn::decoder_inputs(folder, kTarget.toStdString());
        attn::model::Seq2SeqControls controls;
        controls.scale = false;
        controls.ablate = {{attn::model::Component::Cross, 0, 1},
                           {attn::model::Component::Encoder, 0, 2}};
        const attn::model::Seq2SeqRun run =
            attn::model::teacher_forced(*folder.model, source, target, controls);
        const attn::model::Seq2SeqRun plain = attn::model::teacher_forced(
            *folder.model, source, target, attn::model::Seq2SeqControls{});
        QVERIFY2(worst(spec, run.encoder.at(1)) < 1e-6,
                 qPrintable(QString::number(worst(spec, run.encoder.at(1)))));
        QVERIFY(worst(spec, plain.encoder.at(1)) > 1e-3);
        // A run from the reopened dock keeps them: the same weights again.
        QSignalSpy finished(dock, &fileio::Seq2SeqDock::finished);
        QTest::mouseClick(dock->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QVERIFY(worst(w.scene()->spec(), run.encoder.at(1)) < 1e-6);
    }
};

QTEST_MAIN(Seq2SeqSessionTest)
#include "seq2seq_session_test.moc"
