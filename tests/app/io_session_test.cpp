// QtTest: sessions save → load round-trip the scene exactly; broken and newer sessions explain
// themselves and change nothing; autosave writes a loadable file.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/file_controller.hpp"
#include "io/playground_json.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "playground/playground_widget.hpp"

namespace {

using test_support::fixture;

/// SceneSpec's == compares loaded data, embeddings and weights by identity; a reloaded file
/// holds new objects, so compare their contents, then the rest with the same pointers.
bool same(const attn::Matrix& a, const attn::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && a == b;
}

bool sameSceneWithReloadedData(attn::SceneSpec a, attn::SceneSpec b) {
    if (bool(a.data) != bool(b.data)) return false;
    if (a.data) {
        if (a.data->components.size() != b.data->components.size()) return false;
        for (std::size_t c = 0; c < a.data->components.size(); ++c)
            for (std::size_t m = 0; m < a.data->components[c].mats.size(); ++m)
                if (a.data->components[c].mats[m] != b.data->components[c].mats[m]) return false;
        b.data = a.data;
    }
    if (bool(a.embeddings) != bool(b.embeddings) || bool(a.weights) != bool(b.weights))
        return false;
    if (a.embeddings && !same(*a.embeddings, *b.embeddings)) return false;
    if (a.weights && !(same(a.weights->Wq, b.weights->Wq) && same(a.weights->Wk, b.weights->Wk) &&
                       same(a.weights->Wv, b.weights->Wv) && same(a.weights->Wo, b.weights->Wo)))
        return false;
    b.embeddings = a.embeddings;
    b.weights = a.weights;
    return a == b;
}

}  // namespace

class IoSessionTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void computedSceneRoundTrips() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.attnscope"));
        attn::SceneSpec spec;
        Selection selection;
        {
            MainWindow w;
            fileio::FileController files(&w);
            files.setQuiet(true);
            spec = w.scene()->spec();
            spec.text = "Attention is all you need , they said .";
            spec.heads = 8;
            spec.d_model = 96;
            spec.kv_heads = 2;
            spec.score = attn::ScoreKind::Additive;
            spec.scale = false;
            spec.temperature = 0.3712f;
            spec.mask.kind = attn::MaskKind::GlobalWindow;
            spec.mask.window = 1;
            spec.mask.global = {0, 3};
            spec.positional = attn::PositionalKind::Learned;
            spec.seed = 123456789012345ULL;
            w.scene()->setSpec(spec, QStringLiteral("edit"));
            selection = {2, 5, 3};
            w.scene()->setSelection(selection);
            QVERIFY(!w.scene()->undoStack()->isClean());
            QString error;
            QVERIFY2(files.saveTo(path, &error), qPrintable(error));
        }
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY2(files.openFile(path), qPrintable(files.lastError()));
        QVERIFY(w.scene()->spec() == spec);
        QCOMPARE(w.scene()->selection(), selection);
        QVERIFY(w.scene()->undoStack()->isClean());  // a freshly opened session is saved
        QCOMPARE(files.currentFile(), QFileInfo(path).absoluteFilePath());
    }

    void explicitEmbeddingsAndWeightsRoundTrip() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.attnscope"));
        attn::SceneSpec spec;
        spec.tokens = {"a", "b", "c", "d"};
        spec.d_model = 8;
        spec.heads = 2;
        spec.embeddings = std::make_shared<const attn::Matrix>(attn::Matrix::Random(4, 8));
        attn::MultiHeadConfig config{8, 2, 0};
        spec.weights = std::make_shared<const attn::MultiHeadWeights>(
            attn::MultiHeadWeights::xavier(config, attn::ScoreKind::Dot, 7));
        {
            MainWindow w;
            fileio::FileController files(&w);
            w.scene()->setSpec(spec, QStringLiteral("edit"));
            QString error;
            QVERIFY2(files.saveTo(path, &error), qPrintable(error));
        }
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY2(files.openFile(path), qPrintable(files.lastError()));
        QVERIFY(sameSceneWithReloadedData(w.scene()->spec(), spec));
    }

    void loadedDataSessionRoundTrips() {
        QTemporaryDir dir;
        const QString data = dir.filePath(QStringLiteral("gpt2.npz"));
        QVERIFY(QFile::copy(fixture("gpt2_small_ex0.npz"), data));
        const QString path = dir.filePath(QStringLiteral("d.attnscope"));
        attn::SceneSpec spec;
        {
            MainWindow w;
            fileio::FileController files(&w);
            files.setQuiet(true);
            QVERIFY(files.openFile(data));
            spec = w.scene()->spec();
            spec.layer = 9;
            spec.component = 0;
            spec.mask.kind = attn::MaskKind::Causal;
            spec.data_dk = 32.f;
            w.scene()->setSpec(spec, QStringLiteral("edit"));
            QString error;
            QVERIFY2(files.saveTo(path, &error), qPrintable(error));
        }
        // The session refers to the data file relative to itself.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("gpt2.npz"));
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY2(files.openFile(path), qPrintable(files.lastError()));
        QVERIFY(sameSceneWithReloadedData(w.scene()->spec(), spec));
    }

    void playgroundStateRoundTrips() {
        attn::PlaygroundState s = attn::playground_preset(attn::PlaygroundPreset::WorkedExample);
        s.temperature = 0.123456789;
        s.seed = 18446744073709551557ULL;
        s.masked = {false, true};
        s.W << 1.5, -0.25, 0.125, 2;
        attn::PlaygroundState back;
        const QByteArray json = QJsonDocument(fileio::playgroundToJson(s)).toJson();
        QVERIFY(fileio::playgroundFromJson(QJsonDocument::fromJson(json).object(), &back));
        QVERIFY(back == s);
    }

    void brokenAndNewerSessionsChangeNothing() {
        QTemporaryDir dir;
        const QString good = dir.filePath(QStringLiteral("good.attnscope"));
        {
            MainWindow w;
            fileio::FileController files(&w);
            QString error;
            QVERIFY(files.saveTo(good, &error));
        }
        QFile in(good);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray text = in.readAll();
        const QString truncated = dir.filePath(QStringLiteral("truncated.attnscope"));
        const QString newer = dir.filePath(QStringLiteral("newer.attnscope"));
        QFile t(truncated);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(text.left(text.size() / 2));
        t.close();
        QByteArray future = text;
        future.replace("\"version\": 1", "\"version\": 99");
        QVERIFY(future != text);
        QFile n(newer);
        QVERIFY(n.open(QIODevice::WriteOnly));
        n.write(future);
        n.close();

        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        attn::SceneSpec edited = w.scene()->spec();
        edited.temperature = 2.5f;
        w.scene()->setSpec(edited, QStringLiteral("edit"));
        const attn::SceneSpec before = w.scene()->spec();
        QVERIFY(!files.openFile(truncated));
        QVERIFY2(files.lastError().contains(QStringLiteral("truncated.attnscope")),
                 qPrintable(files.lastError()));
        QVERIFY(w.scene()->spec() == before);
        QVERIFY(!files.openFile(newer));
        QVERIFY2(files.lastError().contains(QStringLiteral("99")) ||
                     files.lastError().contains(QStringLiteral("newer")),
                 qPrintable(files.lastError()));
        QVERIFY(w.scene()->spec() == before);
        QCOMPARE(w.scene()->undoStack()->count(), 1);
    }

    void autosaveWritesALoadableSession() {
        attn::SceneSpec spec;
        QString autosave;
        {
            MainWindow w;
            fileio::FileController files(&w);
            autosave = files.autosavePath();
            QFile::remove(autosave);
            files.autosave();  // clean: nothing to save
            QVERIFY(!QFile::exists(autosave));
            spec = w.scene()->spec();
            spec.heads = 2;
            w.scene()->setSpec(spec, QStringLiteral("edit"));
            files.autosave();
            QVERIFY(QFile::exists(autosave));
        }
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY(files.openFile(autosave));
        QVERIFY(w.scene()->spec() == spec);
        QFile::remove(autosave);
        QFile::remove(autosave + QStringLiteral(".document"));
    }
};

QTEST_MAIN(IoSessionTest)
#include "io_session_test.moc"
