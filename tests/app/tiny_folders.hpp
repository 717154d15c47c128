// AttnScope app tests — tiny random model folders in the Hugging Face layout, written by the core
// tests' numpy scripts (tests/core/gpt2_tiny.py, bert_tiny.py, llama_tiny.py), so the window opens
// a real folder of each family. GPL-3.0-or-later.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

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

}  // namespace test_support
