// AttnScope — encoder–decoder models on the command line: `attnscope compute --target` (a
// teacher-forced run) and `attnscope translate` (greedy or beam search). GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>

class QTextStream;

namespace cli {

/// Whether `compute` ARGUMENTS ask for an encoder–decoder run: --target given, or --model naming
/// an encoder–decoder folder.
bool isSeq2SeqCompute(const QStringList& arguments);

/// Parses and runs `attnscope compute --model DIR --text SRC --target TGT -o OUT.npz`; messages
/// go to ERR. Returns an exit code of exit_codes.hpp.
int runSeq2SeqCompute(const QStringList& arguments, QTextStream& err);

/// Parses and runs `attnscope translate --model DIR --text SRC … -o OUT.npz`.
int runTranslate(const QStringList& arguments, QTextStream& err);

/// Parses and runs `attnscope patch` on an encoder–decoder folder (the heads of its encoder,
/// decoder and cross-attention patched from the clean run into the corrupted one).
int runSeq2SeqPatch(const QStringList& arguments, QTextStream& err);

/// The encoder–decoder part of --help.
QString seq2seqHelp();

}  // namespace cli
