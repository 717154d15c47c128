// AttnScope — `attnscope patch`: activation patching of a model's clean and corrupted prompts.
// GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <QTextStream>

namespace cli {

/// Runs `attnscope patch --model DIR --clean T1 --corrupt T2 --answer ID1 --wrong ID2 -o OUT`
/// (ARGUMENTS as the program's, argv[1] = "patch"): writes head_patch [L,H], resid_patch
/// [L+1,n], the two prompts' token ids and logit differences to OUT (.npz). Returns the
/// exit code; messages go to ERR.
int runPatch(const QStringList& arguments, QTextStream& err);

}  // namespace cli
