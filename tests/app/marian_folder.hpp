// The tiny random Marian folder the encoder–decoder app tests open, written by the CLI tests'
// seq2seq_tiny.py (SentencePiece models trained there). GPL-3.0-or-later.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

namespace test_support {

/// Writes the tiny Marian folder (seed 3, shared embeddings) into DIR; "" or the script's error.
inline QString writeMarianFolder(const QString& dir) {
    QProcess p;
    p.start(
        QStringLiteral("/usr/bin/python3"),
        {QStringLiteral("-c"),
         QStringLiteral("import sys; sys.path.insert(0, sys.argv[1]); import seq2seq_tiny as t; "
                        "t.marian_folder(sys.argv[2], 3, True)"),
         QStringLiteral(ATTN_CORE_TESTS_DIR "/../cli"), dir});
    if (!p.waitForFinished(120000) || p.exitCode() != 0)
        return QString::fromUtf8(p.readAllStandardError()) + QStringLiteral(" (python3)");
    return {};
}

}  // namespace test_support
