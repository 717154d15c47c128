// QtTest: dropping files on the main window. File URLs dropped anywhere on the window (the
// events go to a child and propagate up, as a real drop does) open through the one openFile
// path: .npy, BertViz .json, .txt tokens and sessions each become the scene. A malformed file
// leaves the session untouched and says so, naming the file, in a message box (or lastError
// when quiet). Drops that are not local files are refused at the drag-enter.
#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QMessageBox>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/io/numpy/npy.hpp"
#include "io/file_controller.hpp"
#include "views/heatmap_grid.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

namespace {

using test_support::fixture;

struct DropOutcome {
    bool entered = false;  ///< the drag-enter was accepted (the cursor shows "copy")
    bool dropped = false;  ///< the drop was accepted
};

/// Drags mime over `target` and drops it there, through QApplication like a real drop.
DropOutcome dragAndDrop(QWidget* target, const QMimeData& mime) {
    const QPoint at = target->rect().center();
    DropOutcome out;
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    out.entered = enter.isAccepted();
    if (!out.entered) return out;
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    out.dropped = drop.isAccepted();
    return out;
}

DropOutcome dropFile(QWidget* target, const QString& path) {
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    return dragAndDrop(target, mime);
}

/// Weights [2 heads, 3, 3] (each row sums to 1) as a .npy file.
QString writeWeights(const QTemporaryDir& dir, std::vector<float>* values) {
    *values = {0.5f, 0.25f, 0.25f, 0.1f, 0.8f, 0.1f, 0.2f, 0.2f, 0.6f,
               1.0f, 0.0f,  0.0f,  0.3f, 0.3f, 0.4f, 0.0f, 0.5f, 0.5f};
    const QString path = dir.filePath(QStringLiteral("weights.npy"));
    const std::uint64_t shape[] = {2, 3, 3};
    attn::io::write_npy(QFile::encodeName(path).toStdString(), *values, shape);
    return path;
}

}  // namespace

class IoDropTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void droppedNpyBecomesTheScene() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        test_support::showWindow(w);
        std::vector<float> weights;
        const QString path = writeWeights(dir_, &weights);
        const DropOutcome d = dropFile(w.heatmapGrid(), path);
        QVERIFY(d.entered);
        QVERIFY(d.dropped);
        // Opened after the drop returns (never inside the drop handler).
        QTRY_VERIFY(w.scene()->spec().data);
        QCOMPARE(files.lastError(), QString());
        QCOMPARE(w.scene()->undoStack()->count(), 1);
        test_support::settle(w.computeService());
        QVERIFY(w.result());
        QCOMPARE(w.result()->heads.size(), std::size_t(2));
        std::vector<double> expected(weights.begin(), weights.end());
        QVERIFY(test_support::sameValues(test_support::drawnAll(w.heatmapGrid()), expected));
    }

    void droppedJsonTextAndSessionBecomeTheScene() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        test_support::showWindow(w);

        // BertViz JSON: six layers of loaded weights.
        QVERIFY(dropFile(&w, fixture("bertviz_distilbert_headview.json")).dropped);
        QTRY_VERIFY(w.scene()->spec().data);
        test_support::settle(w.computeService());
        QVERIFY(!w.result()->has_scores);
        QCOMPARE(w.result()->layers, attn::Index(6));

        // Tokens, one a line.
        const QString tokens = dir_.filePath(QStringLiteral("tokens.txt"));
        QFile f(tokens);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("the\ncat\nsat\n");
        f.close();
        QVERIFY(dropFile(w.tokenEditor(), tokens).dropped);
        QTRY_COMPARE(w.scene()->spec().tokens, (std::vector<std::string>{"the", "cat", "sat"}));
        QVERIFY(!w.scene()->spec().data);

        // A session saved from another scene: it comes back exactly, named by its file.
        attn::SceneSpec other = w.scene()->spec();
        other.tokens.clear();
        other.text = "a session dropped on the window";
        other.heads = 8;
        other.temperature = 2.0f;
        const QString session = dir_.filePath(QStringLiteral("dropped.attnscope"));
        {
            MainWindow source;
            fileio::FileController sourceFiles(&source);
            source.scene()->setSpec(other, QStringLiteral("edit"));
            QString error;
            QVERIFY2(sourceFiles.saveTo(session, &error), qPrintable(error));
            other = source.scene()->spec();
        }
        QVERIFY(dropFile(w.controlsDock(), session).dropped);
        QTRY_COMPARE(files.currentFile(), QFileInfo(session).absoluteFilePath());
        QVERIFY(w.scene()->spec() == other);
        test_support::settle(w.computeService());
        QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), other), QString());
    }

    void malformedDropChangesNothingAndSaysSo() {
        MainWindow w;
        auto* files = new fileio::FileController(&w);  // not quiet: the GUI's message box
        test_support::showWindow(w);
        attn::SceneSpec edited = w.scene()->spec();
        edited.heads = 2;
        w.scene()->setSpec(edited, QStringLiteral("edit"));
        const attn::SceneSpec before = w.scene()->spec();
        const int undoCount = w.scene()->undoStack()->count();
        const QString junk = dir_.filePath(QStringLiteral("junk.npy"));
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\x93NUMPY but not really");
        f.close();

        // Answer the warning when it appears (it is modal: poll from its own event loop).
        QString shown;
        QTimer closer;
        closer.setInterval(20);
        connect(&closer, &QTimer::timeout, this, [&shown] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                shown = box->text();
                box->accept();
            }
        });
        closer.start();
        QVERIFY(dropFile(w.heatmapGrid(), junk).dropped);
        QTRY_VERIFY(!shown.isEmpty());
        closer.stop();
        QVERIFY2(shown.contains(QStringLiteral("junk.npy")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("unchanged")), qPrintable(shown));
        QCOMPARE(files->lastError(), shown);
        QVERIFY(w.scene()->spec() == before);
        QCOMPARE(w.scene()->undoStack()->count(), undoCount);
        QVERIFY(files->currentFile().isEmpty());

        // Quiet (tests, scripted use): the same refusal, reported in lastError only.
        files->setQuiet(true);
        const QString missing = dir_.filePath(QStringLiteral("gone.json"));
        QVERIFY(dropFile(&w, missing).dropped);
        QTRY_VERIFY(files->lastError().contains(QStringLiteral("gone.json")));
        QVERIFY(w.scene()->spec() == before);
        QCOMPARE(w.scene()->undoStack()->count(), undoCount);
    }

    void onlyLocalFilesAreAccepted() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        test_support::showWindow(w);
        QMimeData text;
        text.setText(QStringLiteral("just some text"));
        QVERIFY(!dragAndDrop(w.heatmapGrid(), text).entered);
        QMimeData remote;
        remote.setUrls({QUrl(QStringLiteral("https://example.org/weights.npy"))});
        QVERIFY(!dragAndDrop(w.heatmapGrid(), remote).entered);
        QCoreApplication::processEvents();
        QCOMPARE(w.scene()->undoStack()->count(), 0);
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(IoDropTest)
#include "io_drop_test.moc"
