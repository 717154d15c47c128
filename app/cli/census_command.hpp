// AttnScope — `attnscope census`: a pattern label and scores for every head. GPL-3.0-or-later.
#pragma once

#include <QString>

#include "cli/cli_request.hpp"

namespace cli {

/// Computes the census of the request's scene and writes it as .csv or .json; returns an exit
/// code and sets *error otherwise.
int runCensus(const Request& request, QString* error);

}  // namespace cli
