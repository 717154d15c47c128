// AttnScope core — reading tokenizer.json's fields with errors that name the file and the place.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace attn::tok::detail {

using Json = nlohmann::json;

/// A place in the file ("pre_tokenizer.pretokenizers[1]"), for error messages.
struct Where {
    const std::string* file;
    std::string path;

    Where at(const std::string& key) const;
    Where at(std::size_t index) const;
    /// Throws FormatError "FILE: PATH WHAT".
    [[noreturn]] void fail(const std::string& what) const;
};

/// OBJ[KEY], which must exist and not be null; OBJ must be an object.
const Json& need(const Json& obj, const char* key, const Where& w);
/// OBJ[KEY], or nullptr when absent or null.
const Json* opt(const Json& obj, const char* key, const Where& w);
std::string need_string(const Json& obj, const char* key, const Where& w);
bool opt_bool(const Json& obj, const char* key, bool fallback, const Where& w);
std::string opt_string(const Json& obj, const char* key, const std::string& fallback,
                       const Where& w);
/// An integer in [LO, HI].
std::int64_t need_int(const Json& obj, const char* key, std::int64_t lo, std::int64_t hi,
                      const Where& w);
std::int64_t as_int(const Json& v, std::int64_t lo, std::int64_t hi, const Where& w);
const Json& need_array(const Json& obj, const char* key, const Where& w);
/// The component's "type", refused by name when it is not one of the types SUPPORTED lists.
std::string type_of(const Json& obj, const Where& w);
/// Throws the "type "T" is not supported" error.
[[noreturn]] void unsupported(const std::string& type, const Where& w);
/// The one character of a field such as Metaspace's replacement, as UTF-8.
std::string need_char(const Json& obj, const char* key, const Where& w);

/// Ids are below this (16,777,216): larger ones are refused rather than allocated for.
inline constexpr std::int64_t kMaxId = std::int64_t(1) << 24;

}  // namespace attn::tok::detail
