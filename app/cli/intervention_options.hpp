// AttnScope — the command line's interventions: --ablate, --ablate-mode, --knockout,
// --logit-lens, --attribute, --induction. GPL-3.0-or-later.
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <optional>

#include "attn/models/hooks.hpp"

namespace cli {

struct Request;

/// Adds the intervention options to P.
void addInterventionOptions(QCommandLineParser& p);

/// Parses "L.H[,L.H…]" (0-based) into sorted, unique heads; nullopt when malformed.
std::optional<std::vector<attn::model::Site>> parseHeads(const QString& text);

/// Parses "L.H:Q>K[,…]" (Q may be '*': every query) into sorted, unique knockouts; nullopt
/// when malformed.
std::optional<std::vector<attn::model::Knockout>> parseKnockouts(const QString& text);

/// Reads the intervention options of P into R (interventions, logitLens, attribute, induction);
/// an empty string when fine, else a one-line usage error. They apply to a --model run only;
/// --logit-lens and --attribute to compute, --induction to census.
QString parseInterventionOptions(const QCommandLineParser& p, Request& r);

/// "--knockout L.H:Q>K: query Q is past the N tokens of WHAT (positions 0…N−1)" for the first
/// knockout whose query or key is not one of TOKENS positions (it would remove nothing); empty
/// when each is inside.
QString knockoutOutside(const std::vector<attn::model::Knockout>& knockouts, std::size_t tokens,
                        const QString& what);

/// The --help lines of the intervention options.
QString interventionOptionsHelp();

}  // namespace cli
