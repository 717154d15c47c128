// The tiny random encoder–decoder folders the app tests open (Marian, T5), written by the CLI
// tests' seq2seq_tiny.py (SentencePiece models trained there). GPL-3.0-or-later.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

namespace test_support {

/// Runs seq2seq_tiny.py's CALL (a Python expression of its module t and the folder d) for DIR;
/// "" or the script's error.
inline QString writeSeq2SeqFolder(const QString& dir, const QString& call) {
    QProcess p;
    p.start(
        QStringLiteral("/usr/bin/python3"),
        {QStringLiteral("-c"),
         QStringLiteral("import sys; sys.path.insert(0, sys.argv[1]); import seq2seq_tiny as t; "
                        "d = sys.argv[2]; ") +
             call,
         QStringLiteral(ATTN_CORE_TESTS_DIR "/../cli"), dir});
    if (!p.waitForFinished(120000) || p.exitCode() != 0)
        return QString::fromUtf8(p.readAllStandardError()) + QStringLiteral(" (python3)");
    return {};
}

/// Writes the tiny Marian folder (seed 3, shared embeddings) into DIR; "" or the script's error.
inline QString writeMarianFolder(const QString& dir) {
    return writeSeq2SeqFolder(dir, QStringLiteral("t.marian_folder(d, 3, True)"));
}

/// Writes the tiny T5 folder (seed 3, ReLU feed-forward, tied head, spiece.model) into DIR.
inline QString writeT5Folder(const QString& dir) {
    return writeSeq2SeqFolder(dir, QStringLiteral("t.t5_folder(d, 3)"));
}

}  // namespace test_support
