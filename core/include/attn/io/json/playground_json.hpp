// AttnScope core — the playground's state as JSON (its part of a session's "views").
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <string_view>

#include "attn/playground/playground.hpp"

namespace attn::io {

/// Every member of the state as a compact JSON object (numbers shortest-exact, so they
/// round-trip; the 64-bit seed as a string, which a double would round).
std::string playground_to_json(const PlaygroundState& state);

/// Reads what playground_to_json wrote over `base`: missing members keep base's values, so
/// older sessions load. Throws FormatError naming `name` and the member when malformed.
PlaygroundState parse_playground(std::string_view json, const PlaygroundState& base,
                                 const std::string& name);

}  // namespace attn::io
