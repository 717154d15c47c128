// AttnScope core — nlohmann-json parsing with file-and-byte error messages. GPL-3.0-or-later.
#include "json_util.hpp"

#include "../../files/io_util.hpp"

namespace attn::io::detail {

namespace {

/// Deepest nesting AttnScope reads; BertViz needs 6, sessions 5 plus the app's views.
constexpr int kMaxDepth = 64;

/// Rejects nesting deeper than kMaxDepth before parsing, since printing and walking nested
/// values recurse.
void check_depth(std::string_view text, std::string_view name) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxDepth)
                fail(name, "JSON nested deeper than " + std::to_string(kMaxDepth) +
                               " levels at byte " + std::to_string(i));
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

template <class J>
J parse_as(std::string_view text, std::string_view name) {
    std::size_t skip = 0;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") skip = 3;
    check_depth(text, name);
    try {
        return J::parse(text.substr(skip));
    } catch (const nlohmann::json::parse_error& e) {
        std::string what = e.what();
        // Drop nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: ".
        if (auto p = what.find(": "); p != std::string::npos) what = what.substr(p + 2);
        const std::size_t at = e.byte > 0 ? e.byte - 1 + skip : skip;
        std::string hint;
        const std::string_view near = text.substr(std::min(at, text.size()), 9);
        if (near.starts_with("NaN") || near.starts_with("Infinity") ||
            near.starts_with("-Infinity") || what.find("'NaN") != std::string::npos ||
            what.find("'Inf") != std::string::npos || what.find("'-Inf") != std::string::npos)
            hint = " (NaN and Infinity are not JSON numbers)";
        fail(name, "not valid JSON at byte " + std::to_string(at) + hint + ": " + what);
    } catch (const nlohmann::json::exception& e) {
        // e.g. out_of_range.406 "number overflow parsing '1e999'": no position is known.
        std::string what = e.what();
        if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
        fail(name, "not valid JSON: " + what);
    }
}

}  // namespace

nlohmann::json parse_json(std::string_view text, std::string_view name) {
    return parse_as<nlohmann::json>(text, name);
}

nlohmann::ordered_json parse_ordered_json(std::string_view text, std::string_view name) {
    return parse_as<nlohmann::ordered_json>(text, name);
}

std::string json_kind(nlohmann::json::value_t type) {
    switch (type) {
        case nlohmann::json::value_t::null:
            return "null";
        case nlohmann::json::value_t::object:
            return "an object";
        case nlohmann::json::value_t::array:
            return "a list";
        case nlohmann::json::value_t::string:
            return "a string";
        case nlohmann::json::value_t::boolean:
            return "a boolean";
        case nlohmann::json::value_t::binary:
            return "binary data";
        case nlohmann::json::value_t::discarded:
            return "nothing";
        default:
            return "a number";
    }
}

}  // namespace attn::io::detail
