// QtTest: GGUF files in the window, with real events (issue 38). A tiny llama-architecture GGUF
// (tests/core/gguf_tiny.py: Q4_K matrices, Q and K rows permuted as llama.cpp stores them, an
// embedded SentencePiece tokenizer) is opened through Model ▸ Open Model…'s file dialog, its
// answer typed into the dialog; a sentence is typed and the Heads tab draws core's weights.
// The same file as an Ollama model (a manifest naming its blob) is listed in Model ▸ under its
// Ollama name and opens from there.
#include <QCryptographicHash>
#include <QDialogButtonBox>
#include <QMenu>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/models/model.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/heatmap_grid.hpp"

class GgufModelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeGgufModelTest"));
        QVERIFY(dir_.isValid());
        gguf_ = dir_.path() + QStringLiteral("/tiny-q4_k.gguf");
        QCOMPARE(test_support::writeTinyFolder(
                     ATTN_CORE_TESTS_DIR "/gguf_tiny.py", gguf_,
                     {QStringLiteral("llama"), QStringLiteral("--kind"), QStringLiteral("Q4_K")}),
                 QString());
        // No Hugging Face cache and an Ollama folder of our own.
        qputenv("HF_HOME", (dir_.path() + QStringLiteral("/hf")).toLocal8Bit());
        qputenv("OLLAMA_MODELS", (dir_.path() + QStringLiteral("/ollama")).toLocal8Bit());
    }

    void openThroughTheFileDialog() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        // The dialog is answered as a user would: the file's name typed, then Open clicked.
        QAction* action = w.findChild<QAction*>(QStringLiteral("actionOpenModel"));
        QVERIFY(action);
        const int attempts =
            test_support::answerFileDialog(action, dir_.path(), gguf_, QDialogButtonBox::Open);
        QVERIFY(attempts > 0);
        QCOMPARE(models->lastError(), QString());
        QVERIFY(w.scene()->spec().is_model());
        QCOMPARE(QString::fromStdString(w.scene()->spec().model->dir), gguf_);
        const QString about = models->dock()->aboutText();
        QVERIFY2(about.contains(QStringLiteral("Llama")) &&
                     about.contains(QStringLiteral("4 query / 2 KV heads")),
                 qPrintable(about));

        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat sat on a mat")), QString());
        const auto folder = w.scene()->spec().model;
        // The embedded SentencePiece tokenizer: <s>, then ▁the ▁cat ▁sat ▁on ▁a, then ▁ m at.
        const std::vector<std::int32_t> ids = folder->tokenizer->encode("the cat sat on a mat");
        QCOMPARE(ids.front(), 1);
        QCOMPARE(folder->tokenizer->token_text(ids[2]), std::string(" cat"));
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(grid->headCount(), 4);
        QCOMPARE(test_support::compareWithCore(grid, w.scene()->spec()), QString());
        w.scene()->undoStack()->setClean();
    }

    void openFromOllama() {
        // An Ollama folder: the manifest of library/tiny:q4 names the blob sha256-<its hash>.
        const QString root = dir_.path() + QStringLiteral("/ollama");
        QFile in(gguf_);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        const QString hash = QString::fromLatin1(
            QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
        QVERIFY(QDir().mkpath(root + QStringLiteral("/blobs")));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/manifests/registry.ollama.ai/library/tiny")));
        QVERIFY(QFile::copy(gguf_, root + QStringLiteral("/blobs/sha256-") + hash));
        QFile manifest(root + QStringLiteral("/manifests/registry.ollama.ai/library/tiny/q4"));
        QVERIFY(manifest.open(QIODevice::WriteOnly));
        manifest.write(QStringLiteral("{\"schemaVersion\":2,\"layers\":[{\"mediaType\":"
                                      "\"application/vnd.ollama.image.model\",\"digest\":"
                                      "\"sha256:%1\",\"size\":%2}]}")
                           .arg(hash)
                           .arg(bytes.size())
                           .toUtf8());
        manifest.close();

        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QSignalSpy scanned(models, &fileio::ModelController::cacheScanned);
        Q_EMIT models->menu()->aboutToShow();
        QVERIFY(scanned.wait(20000));
        QAction* entry = nullptr;
        QStringList texts;
        for (QAction* a : models->menu()->actions()) {
            texts << a->text();
            if (a->text().startsWith(QStringLiteral("tiny:q4 — llama GGUF · "))) entry = a;
        }
        QVERIFY2(entry, qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY2(texts.contains(QStringLiteral("In Ollama")),
                 qPrintable(texts.join(QLatin1Char('|'))));
        entry->trigger();
        QCOMPARE(models->lastError(), QString());
        QVERIFY(w.scene()->spec().is_model());
        QCOMPARE(fileio::modelName(QString::fromStdString(w.scene()->spec().model->dir)),
                 QStringLiteral("tiny:q4"));
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat")), QString());
        QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), w.scene()->spec()), QString());
        w.scene()->undoStack()->setClean();
    }

  private:
    QTemporaryDir dir_;
    QString gguf_;
};

QTEST_MAIN(GgufModelTest)
#include "gguf_model_test.moc"
