// AttnScope app tests — tiny random model folders in the Hugging Face layout, written by the core
// tests' numpy scripts (tests/core/gpt2_tiny.py, bert_tiny.py, llama_tiny.py, gemma_tiny.py), so
// the window opens a real folder of each family: from a folder, or from a Hugging Face cache
// through Model ▸, with a sentence typed as a user types it. GPL-3.0-or-later.
#pragma once

#include <QDir>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/model_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "widgets/token_editor.hpp"

namespace test_support {

/// Runs SCRIPT DIR ARGS… with Debian's python3 (which has numpy); "" when the folder was
/// written, else what went wrong.
inline QString writeTinyFolder(const char* script, const QString& dir,
                               const QStringList& args = {}) {
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"), QStringList{QString::fromUtf8(script), dir} + args);
    if (!p.waitForFinished(60000))
        return QStringLiteral("%1 did not finish").arg(QString::fromUtf8(script));
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QString::fromUtf8(p.readAllStandardError());
    return {};
}

/// gpt2_tiny.py's GPT-2 of 3 layers (seed 11) in DIR.
inline QString writeTinyGpt2(const QString& dir) {
    return writeTinyFolder(ATTN_GPT2_TINY, dir, {QStringLiteral("11"), QStringLiteral("3")});
}

/// bert_tiny.py's BertForMaskedLM (seed 11) in DIR; EXTRA e.g. --no-head.
inline QString writeTinyBert(const QString& dir, const QStringList& extra = {}) {
    return writeTinyFolder(ATTN_BERT_TINY, dir, QStringList{QStringLiteral("11")} + extra);
}

/// llama_tiny.py's folder of MODEL_TYPE (llama, mistral, qwen2, qwen3; seed 11, 2 layers, 4
/// query / 2 key-value heads, a tokenizer.json of whole words) in DIR.
inline QString writeTinyLlama(const QString& dir,
                              const QString& modelType = QStringLiteral("llama")) {
    return writeTinyFolder(ATTN_LLAMA_TINY, dir, {QStringLiteral("11"), modelType});
}

/// gemma_tiny.py's Gemma 2 (seed 11, 3 layers, window 4 on layers 1 and 3 counted from 1,
/// soft-caps 2 and 3, 4 query / 2 key-value heads, a tokenizer.json of whole words) in DIR.
inline QString writeTinyGemma2(const QString& dir) {
    return writeTinyFolder(ATTN_CORE_TESTS_DIR "/gemma_tiny.py", dir,
                           {QStringLiteral("11"), QStringLiteral("gemma2")});
}

/// The tiny models above, by family.
enum class Tiny { Gpt2, Bert, Llama, Gemma2 };

/// How a Tiny is written (with its defaults) and the family's name as Model ▸ shows it.
struct TinyFamily {
    QString (*write)(const QString& dir);
    const char* name;
};

/// KIND's writer and name, in Tiny's order.
inline const TinyFamily& tinyFamily(Tiny kind) {
    static const TinyFamily all[] = {
        {[](const QString& dir) { return writeTinyGpt2(dir); }, "GPT-2"},
        {[](const QString& dir) { return writeTinyBert(dir); }, "BERT"},
        {[](const QString& dir) { return writeTinyLlama(dir); }, "Llama"},
        {[](const QString& dir) { return writeTinyGemma2(dir); }, "Gemma 2"},
    };
    return all[int(kind)];
}

/// Writes KIND's tiny folder as the one snapshot of repository REPO ("tiny/llama", kept as
/// HUB/hub/models--tiny--llama/snapshots/0123abcd) of a Hugging Face cache in HUB, and points
/// HF_HOME at HUB: *SNAPSHOT is that folder. "" when written, else what went wrong.
inline QString writeCachedModel(const QTemporaryDir& hub, Tiny kind, const QString& repo,
                                QString* snapshot) {
    if (!hub.isValid()) return QStringLiteral("no temporary folder: ") + hub.errorString();
    QString folder = repo;
    *snapshot = hub.path() + QStringLiteral("/hub/models--") +
                folder.replace(QLatin1Char('/'), QStringLiteral("--")) +
                QStringLiteral("/snapshots/0123abcd");
    if (!QDir().mkpath(*snapshot)) return QStringLiteral("cannot make ") + *snapshot;
    const QString error = tinyFamily(kind).write(*snapshot);
    if (error.isEmpty()) qputenv("HF_HOME", hub.path().toLocal8Bit());
    return error;
}

/// W with the data I/O attached (menus, docks, Model ▸), shown unless SHOW is false: its model
/// controller, quiet (failures are returned, not shown in a box), or nullptr.
inline fileio::ModelController* attachQuietModels(MainWindow& w, bool show = true) {
    fileio::attachDataIo(&w, {});
    auto* models = w.findChild<fileio::ModelController*>();
    if (!models) return nullptr;
    models->setQuiet(true);
    if (show) showWindow(w);
    return models;
}

/// REPO's entry of Model ▸ once the menu, about to show, has scanned the cache (off the GUI
/// thread): the entry that starts "REPO — FAMILY · ", or nullptr with *LISTED the entries there.
inline QAction* cacheEntry(fileio::ModelController* models, Tiny kind, const QString& repo,
                           QString* listed) {
    QMenu* menu = models->menu();
    QSignalSpy scanned(models, &fileio::ModelController::cacheScanned);
    Q_EMIT menu->aboutToShow();
    if (!scanned.wait()) {
        *listed = QStringLiteral("the cache was not scanned");
        return nullptr;
    }
    const QString prefix =
        QStringLiteral("%1 — %2 · ").arg(repo, QString::fromUtf8(tinyFamily(kind).name));
    QStringList texts;
    for (QAction* a : menu->actions()) {
        if (a->text().startsWith(prefix)) return a;
        texts << a->text();
    }
    *listed = texts.join(QLatin1Char('|'));
    return nullptr;
}

/// W with the data I/O attached and shown (attachQuietModels), then REPO (written by
/// writeCachedModel) opened from Model ▸ as a user opens it: the model controller, or nullptr
/// with *ERROR the entries listed or the controller's error.
inline fileio::ModelController* openCachedModel(MainWindow& w, Tiny kind, const QString& repo,
                                                QString* error) {
    fileio::ModelController* models = attachQuietModels(w);
    if (!models) {
        *error = QStringLiteral("no model controller");
        return nullptr;
    }
    QString listed;
    QAction* entry = cacheEntry(models, kind, repo, &listed);
    if (!entry) {
        *error = QStringLiteral("no entry for %1 in Model ▸: %2").arg(repo, listed);
        return nullptr;
    }
    entry->trigger();
    *error = models->lastError();
    return error->isEmpty() ? models : nullptr;
}

/// Types TEXT into W's sentence box as a user does (a click, Ctrl+A, the keys): "" once the
/// scene's sentence is TEXT and its heads computed, else what the sentence is instead. It waits
/// up to 20 s, not QTRY_COMPARE's 5 s: on a machine loaded by parallel builds a typed sentence
/// has once taken longer than 5 s to reach the scene.
inline QString typeSentence(MainWindow& w, const QString& text) {
    QPlainTextEdit* edit = w.tokenEditor()->editor();
    QTest::mouseClick(edit->viewport(), Qt::LeftButton);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(edit, text);
    const std::string want = text.toStdString();
    if (!QTest::qWaitFor([&] { return w.scene()->spec().text == want; }, 20000))
        return QStringLiteral("the sentence is \"%1\", not \"%2\"")
            .arg(QString::fromStdString(w.scene()->spec().text), text);
    settle(w.computeService());
    return {};
}

}  // namespace test_support
