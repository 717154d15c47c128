// AttnScope core — a family's config.json and its fields, read and checked the one way every
// family reads them (header-only: two families include it). GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "../files/io_util.hpp"
#include "attn/blocks/rotary.hpp"
#include "attn/util/error.hpp"

namespace attn::model {

/// PATH's JSON object; throws FormatError naming the file (a FIFO or a directory is refused
/// before it is read).
inline nlohmann::json read_config_json(const std::string& path) {
    // Opened without blocking and refused unless a regular file (a FIFO would hang the start).
    const std::vector<std::byte> bytes = io::detail::read_whole_file(path, path);
    nlohmann::json j = nlohmann::json::parse(
        reinterpret_cast<const char*>(bytes.data()),
        reinterpret_cast<const char*>(bytes.data()) + bytes.size(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw FormatError(path + ": not a JSON object");
    return j;
}

/// A positive integer field (≤ 2²⁴); FALLBACK ≥ 0 when absent or null, else it is required.
inline int config_integer(const nlohmann::json& j, const char* name, const std::string& path,
                          int fallback = -1) {
    if (!j.contains(name) || j[name].is_null()) {
        if (fallback >= 0) return fallback;
        throw FormatError(path + ": \"" + name + "\" is missing");
    }
    if (!j[name].is_number_integer() || j[name].get<long long>() <= 0 ||
        j[name].get<long long>() > (1 << 24))
        throw FormatError(path + ": \"" + name + "\" must be a positive integer");
    return j[name].get<int>();
}

/// A token id field (an integer from 0 to 2²⁴); FALLBACK ≥ 0 when absent or null, else it is
/// required.
inline std::int32_t config_token_id(const nlohmann::json& j, const char* name,
                                    const std::string& path, long long fallback = -1) {
    if (!j.contains(name) || j[name].is_null()) {
        if (fallback >= 0) return std::int32_t(fallback);
        throw FormatError(path + ": \"" + name + "\" is missing");
    }
    if (!j[name].is_number_integer() || j[name].get<long long>() < 0 ||
        j[name].get<long long>() > (1 << 24))
        throw FormatError(path + ": \"" + name + "\" must be a token id (an integer ≥ 0)");
    return std::int32_t(j[name].get<long long>());
}

/// A positive finite number field; FALLBACK when absent or null.
inline double config_number(const nlohmann::json& j, const char* name, const std::string& path,
                            double fallback) {
    if (!j.contains(name) || j[name].is_null()) return fallback;
    if (!j[name].is_number() || !(j[name].get<double>() > 0) ||
        !std::isfinite(j[name].get<double>()))
        throw FormatError(path + ": \"" + name + "\" must be a positive number");
    return j[name].get<double>();
}

/// A true/false field; FALLBACK when absent or null.
inline bool config_flag(const nlohmann::json& j, const char* name, const std::string& path,
                        bool fallback) {
    if (!j.contains(name) || j[name].is_null()) return fallback;
    if (!j[name].is_boolean()) throw FormatError(path + ": \"" + name + "\" must be true or false");
    return j[name].get<bool>();
}

/// config.json's rope_scaling into SPEC (none, "default", "linear", "llama3"); another type is
/// refused by name.
inline void read_rope_scaling(const nlohmann::json& j, const std::string& path,
                              blocks::RopeSpec& c) {
    if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return;
    const nlohmann::json& r = j["rope_scaling"];
    if (!r.is_object()) throw FormatError(path + ": \"rope_scaling\" must be an object or null");
    // Transformers renamed "type" to "rope_type"; folders of either age carry one of them.
    const char* key = r.contains("rope_type") ? "rope_type" : "type";
    if (!r.contains(key) || !r[key].is_string())
        throw FormatError(path + ": \"rope_scaling\" has no \"rope_type\"");
    const std::string type = r[key].get<std::string>();
    const std::string where = path + ": rope_scaling";
    if (type == "default") return;
    if (type == "linear") {
        c.scaling = blocks::RopeScaling::Linear;
        c.factor = config_number(r, "factor", where, -1);
    } else if (type == "llama3") {
        c.scaling = blocks::RopeScaling::Llama3;
        c.factor = config_number(r, "factor", where, -1);
        c.low_freq_factor = config_number(r, "low_freq_factor", where, -1);
        c.high_freq_factor = config_number(r, "high_freq_factor", where, -1);
        c.original_max_positions = config_number(r, "original_max_position_embeddings", where, -1);
        if (!(c.high_freq_factor > c.low_freq_factor))
            throw FormatError(where + ": high_freq_factor must exceed low_freq_factor");
    } else {
        throw FormatError(path + ": rope_scaling type \"" + type +
                          "\" is not supported (AttnScope runs none, linear and llama3)");
    }
    if (c.factor <= 0 || c.low_freq_factor <= 0 || c.original_max_positions <= 0)
        throw FormatError(where +
                          ": factor, low_freq_factor, high_freq_factor and "
                          "original_max_position_embeddings must be positive numbers");
}

}  // namespace attn::model
