// AttnScope — what an encoder–decoder command line asks for: `compute --target`, `translate`
// and `patch` on an encoder–decoder folder. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

#include "attn/generate/translate.hpp"
#include "cli/cli_request.hpp"

namespace cli {

/// The encoder–decoder commands.
enum class Seq2SeqCommand { Compute, Translate, Patch };

/// What an encoder–decoder command line asks for.
struct Seq2SeqRequest {
    Request files;                       ///< --model, -o and --force, as output_check reads them
    QString text, target;                ///< patch: --clean is TEXT
    QString corrupt, corruptTarget;      ///< patch: the corrupted source and target (empty: same)
    std::int32_t answer = 0, wrong = 0;  ///< patch
    bool logitLens = false;              ///< compute --logit-lens
    attn::gen::TranslateOptions options;
};

/// Parses ARGUMENTS (argv, the command at 1) as COMMAND, or sets ERROR to a usage message.
std::optional<Seq2SeqRequest> parseSeq2Seq(const QStringList& arguments, Seq2SeqCommand command,
                                           QString* error);

}  // namespace cli
