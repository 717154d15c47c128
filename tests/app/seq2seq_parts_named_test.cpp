// QtTest: the Heads tab names which of an encoder–decoder's three attentions it shows. A tiny
// random T5 (tests/cli/seq2seq_tiny.py) opens from Model ▸ Open Model and runs a typed source
// and target; the Loaded data dock's component box, picked with the keyboard, switches the heads
// between the encoder's and the decoder's self-attention and the cross-attention, whose heads
// look alike: the line above them says which it is and what its rows and columns are, as the
// heads' axes change (source × source, target × target, target × source). GPL-3.0-or-later.
#include <QComboBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_dock.hpp"
#include "main_window.hpp"
#include "marian_folder.hpp"
#include "model/scene.hpp"
#include "seq2seq_window.hpp"
#include "views/heatmap_grid.hpp"

class Seq2SeqPartsNamedTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSeq2SeqPartsNamedTest"));
    }

    void t5HeadsSayWhichAttention() {
        QTemporaryDir dir;
        QCOMPARE(test_support::writeT5Folder(dir.path()), QString());
        MainWindow w;
        const QString opened = test_support::openSeq2SeqRun(w, dir.path(), {1280, 800});
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        HeatmapGrid* grid = w.heatmapGrid();
        QComboBox* box = w.findChild<fileio::DataDock*>()->componentBox();
        QVERIFY(box->isVisible());
        const SceneResultPtr cross = w.result();
        QVERIFY(cross && cross->q_tokens != cross->k_tokens);
        QVERIFY2(grid->note()->isVisible() &&
                     grid->note()->text().startsWith(QStringLiteral("Cross-attention")),
                 qPrintable(grid->note()->text()));
        // Home: Encoder (the source both ways), Down: Decoder (the target both ways), Down: Cross.
        box->setFocus();
        const struct {
            Qt::Key key;
            const char *part, *note;
            const std::vector<std::string>& tokens;
        } steps[] = {{Qt::Key_Home, "Encoder", "Encoder self-attention", cross->k_tokens},
                     {Qt::Key_Down, "Decoder", "Decoder self-attention", cross->q_tokens},
                     {Qt::Key_Down, "Cross", "Cross-attention", cross->q_tokens}};
        for (const auto& step : steps) {
            QTest::keyClick(box, step.key);
            test_support::settleAll(w.computeService());
            QCOMPARE(box->currentText(), QString::fromLatin1(step.part));
            QVERIFY(w.result()->q_tokens == step.tokens);
            QVERIFY2(grid->note()->isVisible() &&
                         grid->note()->text().startsWith(QString::fromLatin1(step.note)),
                     qPrintable(grid->note()->text()));
        }
        QVERIFY(w.result()->k_tokens == cross->k_tokens);  // Cross: the source across
        w.scene()->undoStack()->setClean();
    }
};

QTEST_MAIN(Seq2SeqPartsNamedTest)
#include "seq2seq_parts_named_test.moc"
