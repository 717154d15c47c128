// QtTest: the window's writes (session Save, autosave, File ▸ Export) never clobber what they
// should not. Each goes to a unique temporary file renamed over the destination, so a link
// planted at the old fixed name OUT.tmp keeps its target; a replaced file keeps its
// permissions; a read-only file (by its mode bits: the tests may run as root), a symbolic link
// and the loaded data file itself are refused, naming the reason, and stay as they were.
#include <sys/stat.h>
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "export/export_controller.hpp"
#include "export/export_options.hpp"
#include "io/file_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "views/heatmap_grid.hpp"

namespace {

QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

bool write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

unsigned mode(const QString& path) {
    struct stat st {};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_mode & 07777 : 0;
}

bool chmodTo(const QString& path, unsigned m) {
    return ::chmod(QFile::encodeName(path).constData(), m) == 0;
}

}  // namespace

class IoSaveSafetyTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSaveSafetyTest"));
    }

    void sessionSaveKeepsPermissionsAndIgnoresAPlantedTmp() {
        QTemporaryDir dir;
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        const QString session = dir.filePath(QStringLiteral("private.attnscope"));
        const QString victim = dir.filePath(QStringLiteral("victim"));
        QVERIFY(write(victim, "victim"));
        QVERIFY(QFile::link(victim, session + QStringLiteral(".tmp")));
        QString error;
        QVERIFY2(files.saveTo(session, &error), qPrintable(error));
        QCOMPARE(contents(victim), QByteArray("victim"));
        QVERIFY(chmodTo(session, 0600));
        attn::SceneSpec spec = w.scene()->spec();
        spec.seed = 11;
        w.scene()->setSpec(spec, QStringLiteral("edit"));
        QVERIFY2(files.saveTo(session, &error), qPrintable(error));
        QCOMPARE(mode(session), 0600u);
        QVERIFY(contents(session).contains("11"));
        QCOMPARE(contents(victim), QByteArray("victim"));
        QCOMPARE(QDir(dir.path())
                     .entryList({QStringLiteral("*.attnscope-tmp")}, QDir::Files | QDir::Hidden),
                 QStringList());
    }

    void sessionSaveRefusesReadOnlyLinksAndTheData() {
        QTemporaryDir dir;
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QString error;
        // Read-only: refused by its mode (root could write it), unchanged.
        const QString readOnly = dir.filePath(QStringLiteral("ro.attnscope"));
        QVERIFY(write(readOnly, "keep") && chmodTo(readOnly, 0444));
        QVERIFY(!files.saveTo(readOnly, &error));
        QVERIFY2(error.contains(QStringLiteral("read-only")) && error.contains(readOnly),
                 qPrintable(error));
        QCOMPARE(contents(readOnly), QByteArray("keep"));
        // A symbolic link: refused, link and target unchanged.
        const QString target = dir.filePath(QStringLiteral("target"));
        const QString link = dir.filePath(QStringLiteral("link.attnscope"));
        QVERIFY(write(target, "target") && QFile::link(target, link));
        QVERIFY(!files.saveTo(link, &error));
        QVERIFY2(error.contains(QStringLiteral("symbolic link")), qPrintable(error));
        QCOMPARE(contents(target), QByteArray("target"));
        QVERIFY(QFileInfo(link).isSymLink());
        // The loaded data file itself (through a hard link too): refused naming both.
        const QString data = dir.filePath(QStringLiteral("data.json"));
        QVERIFY(QFile::copy(test_support::fixture("bertviz_distilbert_headview.json"), data));
        const QString hard = dir.filePath(QStringLiteral("hard.json"));
        QVERIFY(::link(QFile::encodeName(data).constData(), QFile::encodeName(hard).constData()) ==
                0);
        QVERIFY2(files.openFile(data), qPrintable(files.lastError()));
        const QByteArray before = contents(data);
        for (const QString& over : {data, hard}) {
            QVERIFY(!files.saveTo(over, &error));
            QVERIFY2(error.contains(QStringLiteral("is the input")) && error.contains(data),
                     qPrintable(error));
        }
        QCOMPARE(contents(data), before);
    }

    void exportRefusesLinksAndReadOnlyAndKeepsPermissions() {
        QTemporaryDir dir;
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        test_support::settle(w.computeService());
        HeatmapGrid* grid = w.heatmapGrid();
        exporting::Options o;
        o.size = QSize(320, 240);
        const QString png = dir.filePath(QStringLiteral("fig.png"));
        const QString victim = dir.filePath(QStringLiteral("victim"));
        QVERIFY(write(victim, "victim"));
        QVERIFY(QFile::link(victim, png + QStringLiteral(".tmp")));
        QCOMPARE(exporter.exportView(grid, png, o), QString());
        QCOMPARE(contents(victim), QByteArray("victim"));
        QVERIFY(contents(png).startsWith("\x89PNG"));
        QVERIFY(chmodTo(png, 0640));
        QCOMPARE(exporter.exportView(grid, png, o), QString());
        QCOMPARE(mode(png), 0640u);
        QVERIFY(chmodTo(png, 0444));
        const QByteArray before = contents(png);
        const QString refused = exporter.exportView(grid, png, o);
        QVERIFY2(refused.contains(QStringLiteral("read-only")), qPrintable(refused));
        QCOMPARE(contents(png), before);
        const QString link = dir.filePath(QStringLiteral("link.svg"));
        QVERIFY(QFile::link(victim, link));
        o.format = exporting::Format::Svg;
        const QString viaLink = exporter.exportView(grid, link, o);
        QVERIFY2(viaLink.contains(QStringLiteral("symbolic link")), qPrintable(viaLink));
        QCOMPARE(contents(victim), QByteArray("victim"));
    }
};

QTEST_MAIN(IoSaveSafetyTest)
#include "io_save_safety_test.moc"
