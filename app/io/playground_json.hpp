// AttnScope — the playground's state in a session's "views" object. GPL-3.0-or-later.
#pragma once

#include <QJsonObject>

#include "attn/playground/playground.hpp"

namespace fileio {

/// Every member of the state as JSON (core writes it: attn::io::playground_to_json).
QJsonObject playgroundToJson(const attn::PlaygroundState& state);
/// Reads what playgroundToJson wrote; missing members keep their defaults, so older sessions
/// load. Returns false (and leaves *state alone) when the object is malformed.
bool playgroundFromJson(const QJsonObject& json, attn::PlaygroundState* state);

}  // namespace fileio
