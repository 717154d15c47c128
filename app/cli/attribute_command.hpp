// AttnScope — `attnscope attribute`: what each token contributed to one prediction, by the
// methods of docs/attribution.md. GPL-3.0-or-later.
#pragma once

#include <QCommandLineParser>
#include <QString>

#include "cli/cli_request.hpp"

namespace cli {

/// Adds --position, --target, --methods, --steps and --faithfulness to P.
void addAttributeOptions(QCommandLineParser& p);

/// Reads the attribute options of P into R; an empty string when fine, else a one-line usage
/// error (they belong to attribute; attribute takes --model and writes .npz).
QString parseAttributeOptions(const QCommandLineParser& p, Request& r);

/// Runs `attnscope attribute` as REQUEST says; an exit code, *ERROR set when not kExitOk.
int runAttribute(const Request& request, QString* error);

/// The --help lines of attribute.
QString attributeHelp();

}  // namespace cli
