// QtTest: a session says what it opens. Saved with a tiny GPT-2, it warns (naming the folder and
// what differs) when the folder now holds a BERT, and still runs it; a relative model.path is
// taken relative to the session, not the working directory; a missing folder is named with its
// family; a missing data file with its full path. GPL-3.0-or-later.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/models/families.hpp"
#include "attn/models/model_identity.hpp"
#include "io/file_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"

namespace {

/// Writes TEXT to PATH; false when it could not.
bool writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

/// What the window says when SESSION does not open because of MESSAGE.
QString refusal(const QString& session, const QString& message) {
    return QStringLiteral("Cannot open %1:\n\n%2\n\nThe current scene is unchanged.")
        .arg(session, message);
}

}  // namespace

class SessionModelIdentityTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSessionIdentityTest"));
        QVERIFY(tmp_.isValid());
    }

    void replacedFolderIsSaidAndStillRun() {
        const QString model = tmp_.path() + QStringLiteral("/models/m");
        QVERIFY(QDir().mkpath(model));
        QCOMPARE(test_support::writeTinyGpt2(model), QString());
        const QString session = tmp_.path() + QStringLiteral("/saved.attnscope");
        {
            MainWindow w;
            fileio::FileController files(&w);
            files.setQuiet(true);
            attn::SceneSpec spec;
            spec.set_model(std::make_shared<const attn::model::ModelFolder>(
                attn::model::open_folder(QFile::encodeName(model).toStdString())));
            w.scene()->setSpec(spec, QStringLiteral("open model"));
            QString error;
            QVERIFY2(files.saveTo(session, &error), qPrintable(error));
            test_support::settle(w.computeService());
        }
        {  // The same folder: no warning.
            MainWindow w;
            fileio::FileController files(&w);
            files.setQuiet(true);
            QVERIFY2(files.openFile(session), qPrintable(files.lastError()));
            QCOMPARE(files.lastWarning(), QString());
            test_support::settle(w.computeService());
        }
        // Another family in its place.
        QVERIFY(QDir(model).removeRecursively());
        QVERIFY(QDir().mkpath(model));
        QCOMPARE(test_support::writeTinyBert(model), QString());
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY2(files.openFile(session), qPrintable(files.lastError()));
        QCOMPARE(files.lastWarning(),
                 session + QStringLiteral(": the model folder ") + model +
                     QStringLiteral(" holds another model than when the session was saved: "
                                    "family BERT (bert) instead of GPT-2 (gpt2), 2 layers "
                                    "instead of 3, 40 vocabulary entries instead of 258; it runs "
                                    "the folder as it is now (save the "
                                    "session to record it)"));
        QVERIFY(w.scene()->spec().model);
        QCOMPARE(QString::fromStdString(w.scene()->spec().model->model->info().family),
                 QStringLiteral("bert"));
        test_support::settle(w.computeService());
    }

    void relativeModelPathIsRelativeToTheSession() {
        const QString model = tmp_.path() + QStringLiteral("/rel/models/g");
        QVERIFY(QDir().mkpath(model));
        QCOMPARE(test_support::writeTinyGpt2(model), QString());
        QVERIFY(QDir().mkpath(tmp_.path() + QStringLiteral("/rel/sessions")));
        const QString session = tmp_.path() + QStringLiteral("/rel/sessions/r.attnscope");
        QVERIFY(writeText(session, R"({"format": "attnscope-session", "version": 1, "scene": {},
            "model": {"path": "../models/g", "layer": 0}})"));
        // The working directory is elsewhere: the path must not resolve against it.
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(QDir::rootPath()));
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        const bool opened = files.openFile(session);
        QDir::setCurrent(before);
        QVERIFY2(opened, qPrintable(files.lastError()));
        QVERIFY(w.scene()->spec().model);
        QCOMPARE(
            QFileInfo(QString::fromStdString(w.scene()->spec().model->dir)).canonicalFilePath(),
            QFileInfo(model).canonicalFilePath());
        QCOMPARE(files.lastWarning(), QString());  // an older session: no identity, no warning
        test_support::settle(w.computeService());
    }

    void missingFolderIsNamedWithItsFamily() {
        const QString session = tmp_.path() + QStringLiteral("/gone.attnscope");
        QVERIFY(writeText(session, R"({"format": "attnscope-session", "version": 1, "scene": {},
            "model": {"path": "gone/bert", "identity": {"family": "bert", "layers": 2,
            "heads": 2, "d_model": 8, "vocab": 40, "hash": "fnv1a64:0000000000000000"}}})"));
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY(!files.openFile(session));
        QCOMPARE(files.lastError(),
                 refusal(session, session + QStringLiteral(": the BERT model folder it runs, ") +
                                      tmp_.path() +
                                      QStringLiteral("/gone/bert (model.path \"gone/bert\"), "
                                                     "does not exist (moved or deleted?); open "
                                                     "the model again with Model ▸ Open Model… "
                                                     "and save the session")));
        // Without an identity (an older session) the family is not guessed.
        QVERIFY(writeText(session, R"({"format": "attnscope-session", "version": 1, "scene": {},
            "model": {"path": "/nonexistent/model"}})"));
        QVERIFY(!files.openFile(session));
        QCOMPARE(files.lastError(),
                 refusal(session,
                         session + QStringLiteral(": the model folder it runs, /nonexistent/model, "
                                                  "does not exist (moved or deleted?); open the "
                                                  "model again with Model ▸ Open Model… and save "
                                                  "the session")));
    }

    void missingDataIsNamedInFull() {
        QVERIFY(QDir().mkpath(tmp_.path() + QStringLiteral("/data")));
        const QString session = tmp_.path() + QStringLiteral("/data/d.attnscope");
        QVERIFY(writeText(session, R"({"format": "attnscope-session", "version": 1, "scene": {},
            "data": {"path": "sub/missing.npz"}})"));
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY(!files.openFile(session));
        QCOMPARE(
            files.lastError(),
            refusal(session, session + QStringLiteral(": the data file it opens, ") + tmp_.path() +
                                 QStringLiteral("/data/sub/missing.npz (data.path "
                                                "\"sub/missing.npz\"), does not exist "
                                                "(moved or deleted?)")));
        // A data file that is there but broken: its full path, not only its name.
        QVERIFY(QDir().mkpath(tmp_.path() + QStringLiteral("/data/sub")));
        const QString broken = tmp_.path() + QStringLiteral("/data/sub/missing.npz");
        QVERIFY(writeText(broken, "not a zip"));
        QVERIFY(!files.openFile(session));
        const QString head =
            QStringLiteral("Cannot open %1:\n\n%1: its data file %2: ").arg(session, broken);
        QVERIFY2(files.lastError().startsWith(head), qPrintable(files.lastError()));
    }

  private:
    QTemporaryDir tmp_;
};

QTEST_MAIN(SessionModelIdentityTest)
#include "session_model_identity_test.moc"
