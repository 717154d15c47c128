// QtTest: files handed over by another process (InstanceServer::filesRequested) open in the
// window the way File ▸ Open does: over unsaved changes the window asks first, and Cancel keeps
// the document as it was; Discard opens the file as one undo step, with the edits one Ctrl+Z
// away. A second server on the same socket stays out while the first is alive, and takes over
// a socket nobody answers on. (Two real processes: tests/python/attnscope_test.py.)
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>
#include <cstring>

#include "app_test_support.hpp"
#include "io/file_controller.hpp"
#include "io/single_instance.hpp"
#include "model/scene.hpp"

namespace {

/// Answers the next modal message box with `button`, recording its text.
class BoxAnswer : public QObject {
  public:
    explicit BoxAnswer(QMessageBox::StandardButton button) : button_(button) {
        timer_.setInterval(20);
        connect(&timer_, &QTimer::timeout, this, [this] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                text = box->text();
                box->button(button_)->click();
                timer_.stop();
            }
        });
        timer_.start();
    }
    QString text;

  private:
    QMessageBox::StandardButton button_;
    QTimer timer_;
};

}  // namespace

class IoSingleInstanceTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void handedFileAsksAboutUnsavedChangesFirst() {
        MainWindow w;
        fileio::FileController files(&w);  // not quiet: a quiet controller asks nobody
        test_support::showWindow(w);
        fileio::InstanceServer server;
        QVERIFY(server.listen(dir_.filePath(QStringLiteral("s1"))));
        fileio::openHandedFiles(&server, &w, &files);
        attn::SceneSpec edited = w.scene()->spec();
        edited.heads = 2;
        w.scene()->setSpec(edited, QStringLiteral("edit"));
        QVERIFY(!w.scene()->undoStack()->isClean());
        const QString path = test_support::fixture("bertviz_distilbert_headview.json");

        {  // Cancel: nothing changes, the edits stay unsaved.
            BoxAnswer answer(QMessageBox::Cancel);
            Q_EMIT server.filesRequested({path});
            QTRY_VERIFY(!answer.text.isEmpty());
            QVERIFY2(answer.text.contains(QStringLiteral("unsaved changes")),
                     qPrintable(answer.text));
            QVERIFY(w.scene()->spec() == edited);
            QVERIFY(!w.scene()->undoStack()->isClean());
        }
        {  // Discard: the file becomes the document; the edited scene is one undo away.
            BoxAnswer answer(QMessageBox::Discard);
            Q_EMIT server.filesRequested({path});
            QTRY_VERIFY(w.scene()->spec().data);
            QCOMPARE(files.documentPath(), QFileInfo(path).absoluteFilePath());
            QVERIFY(w.scene()->undoStack()->isClean());
            w.scene()->undoStack()->undo();
            QVERIFY(w.scene()->spec() == edited);
        }
    }

    void cleanDocumentOpensWithoutAQuestion() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        test_support::showWindow(w);
        fileio::InstanceServer server;
        QVERIFY(server.listen(dir_.filePath(QStringLiteral("s2"))));
        fileio::openHandedFiles(&server, &w, &files);
        const QString a = test_support::fixture("bertviz_gpt2_headview.json");
        const QString b = test_support::fixture("gpt2_small_ex0.npz");
        Q_EMIT server.filesRequested({a, b});  // both, in order: the last one is on show
        QTRY_COMPARE(files.documentPath(), QFileInfo(b).absoluteFilePath());
        QCOMPARE(w.scene()->undoStack()->count(), 2);
    }

    void liveSocketIsKeptAndStaleOneTakenOver() {
        const QString name = dir_.filePath(QStringLiteral("s3"));
        fileio::InstanceServer first;
        QVERIFY(first.listen(name));
        fileio::InstanceServer second;
        QVERIFY(!second.listen(name));  // the first window is alive: it keeps the socket
        QVERIFY(QFileInfo::exists(name));

        // A crashed window's socket: bound, then its process gone without removing it.
        const QString stale = dir_.filePath(QStringLiteral("s4"));
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(fd >= 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        const QByteArray p = QFile::encodeName(stale);
        QVERIFY(std::size_t(p.size()) < sizeof addr.sun_path);
        std::memcpy(addr.sun_path, p.constData(), std::size_t(p.size()));
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        ::close(fd);
        QVERIFY(QFileInfo::exists(stale));
        QVERIFY(!fileio::handOff(stale, {QStringLiteral("/x.npz")}, 1000));  // nobody answers
        fileio::InstanceServer taker;
        QVERIFY(taker.listen(stale));
        QCOMPARE(taker.fullServerName(), stale);
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(IoSingleInstanceTest)
#include "io_single_instance_test.moc"
