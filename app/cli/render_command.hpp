// AttnScope — `attnscope render` and `attnscope compute`. GPL-3.0-or-later.
#pragma once

#include <QString>

#include "cli/cli_request.hpp"

namespace cli {

/// Draws the requested view of the scene into request.output; returns an exit code, with a
/// message in *error when it is not kExitOk.
int runRender(const Request& request, QString* error);

/// Writes every stage of every layer and head into request.output (.npz or .json).
int runCompute(const Request& request, QString* error);

}  // namespace cli
