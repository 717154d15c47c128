// AttnScope core — nlohmann-json parsing with file-and-byte error messages (private header).
// GPL-3.0-or-later.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace attn::io::detail {

/// Parses JSON text (a UTF-8 BOM is skipped); throws FormatError "<name>: not valid JSON at
/// byte N: …" on syntax errors, pointing out NaN/Infinity, which JSON does not allow.
nlohmann::json parse_json(std::string_view text, std::string_view name);
/// Same as parse_json, keeping the key order of objects.
nlohmann::ordered_json parse_ordered_json(std::string_view text, std::string_view name);

/// "a number", "a string", "a list", … for messages.
std::string json_kind(nlohmann::json::value_t type);
/// The kind of any nlohmann json value (json or ordered_json), for messages.
template <class J>
std::string json_kind(const J& j) {
    return json_kind(j.type());
}

}  // namespace attn::io::detail
