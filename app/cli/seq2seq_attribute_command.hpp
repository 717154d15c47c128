// AttnScope — `attnscope attribute --model SEQ2SEQ_DIR`: what each source and target token
// contributed to one prediction of an encoder–decoder (docs/attribution.md). GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>

class QTextStream;

namespace cli {

/// Whether `attribute` ARGUMENTS name an encoder–decoder folder with --model.
bool isSeq2SeqAttribute(const QStringList& arguments);

/// Parses and runs `attnscope attribute --model DIR --text SRC --target TGT … -o OUT.npz`;
/// messages go to ERR. Returns an exit code of exit_codes.hpp.
int runSeq2SeqAttribute(const QStringList& arguments, QTextStream& err);

/// The encoder–decoder lines of attribute's --help.
QString seq2seqAttributeHelp();

}  // namespace cli
