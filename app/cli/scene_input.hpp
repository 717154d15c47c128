// AttnScope — the scene a command line describes: input file, component, layer, options.
// GPL-3.0-or-later.
#pragma once

#include <QString>

#include "attn/scene/scene.hpp"
#include "cli/cli_request.hpp"

namespace cli {

/// The scene to render or compute, and the session's app part when the input was a session.
struct SceneInput {
    attn::SceneSpec spec;
    QString viewsJson = QStringLiteral("{}");
    /// The file whose content alone made the scene (no scene option was typed): a scene that
    /// cannot be computed is then that file's fault (exit 2), not the command line's.
    QString blame;
};

/// How many queries and keys a scene computes: a model's tokens of its text (no more than its
/// positions), the loaded component's, or the computed sentence's (keys: --cross-text's).
struct TokenCounts {
    std::size_t queries = 0, keys = 0;
};
TokenCounts tokenCounts(const attn::SceneSpec& spec);

/// The request's input for messages: its file, its model folder or "the default scene".
QString inputName(const Request& request);

/// Loads the request's file (if any) and applies --component, --layer and the scene options.
/// Returns an exit code (kExitOk on success) and writes a message to *error otherwise.
int prepareScene(const Request& request, SceneInput* input, QString* error);

}  // namespace cli
