// AttnScope core — reading tokenizer.json's fields. GPL-3.0-or-later.
#include "json_fields.hpp"

#include "../util/utf8.hpp"
#include "attn/util/error.hpp"

namespace attn::tok::detail {

Where Where::at(const std::string& key) const {
    return {file, path.empty() ? key : path + "." + key};
}

Where Where::at(std::size_t index) const {
    return {file, path + "[" + std::to_string(index) + "]"};
}

void Where::fail(const std::string& what) const {
    throw FormatError(*file + ": " + (path.empty() ? "" : path + " ") + what);
}

namespace {

const char* json_kind(const Json& v) {
    return v.type_name();
}

}  // namespace

const Json& need(const Json& obj, const char* key, const Where& w) {
    if (!obj.is_object()) w.fail(std::string("must be an object, not ") + json_kind(obj));
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) w.fail(std::string("has no \"") + key + "\"");
    return *it;
}

const Json* opt(const Json& obj, const char* key, const Where& w) {
    if (!obj.is_object()) w.fail(std::string("must be an object, not ") + json_kind(obj));
    const auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string need_string(const Json& obj, const char* key, const Where& w) {
    const Json& v = need(obj, key, w);
    if (!v.is_string()) w.at(key).fail(std::string("must be a string, not ") + json_kind(v));
    return v.get<std::string>();
}

bool opt_bool(const Json& obj, const char* key, bool fallback, const Where& w) {
    const Json* v = opt(obj, key, w);
    if (!v) return fallback;
    if (!v->is_boolean())
        w.at(key).fail(std::string("must be true or false, not ") + json_kind(*v));
    return v->get<bool>();
}

std::string opt_string(const Json& obj, const char* key, const std::string& fallback,
                       const Where& w) {
    const Json* v = opt(obj, key, w);
    if (!v) return fallback;
    if (!v->is_string()) w.at(key).fail(std::string("must be a string, not ") + json_kind(*v));
    return v->get<std::string>();
}

std::int64_t as_int(const Json& v, std::int64_t lo, std::int64_t hi, const Where& w) {
    if (!v.is_number_integer())
        w.fail(std::string("must be an integer, not ") + (v.is_number() ? v.dump() : json_kind(v)));
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(hi))
        w.fail("is " + v.dump() + ", not one of " + std::to_string(lo) + ".." + std::to_string(hi));
    const auto i = v.get<std::int64_t>();
    if (i < lo || i > hi)
        w.fail("is " + v.dump() + ", not one of " + std::to_string(lo) + ".." + std::to_string(hi));
    return i;
}

std::int64_t need_int(const Json& obj, const char* key, std::int64_t lo, std::int64_t hi,
                      const Where& w) {
    return as_int(need(obj, key, w), lo, hi, w.at(key));
}

const Json& need_array(const Json& obj, const char* key, const Where& w) {
    const Json& v = need(obj, key, w);
    if (!v.is_array()) w.at(key).fail(std::string("must be an array, not ") + json_kind(v));
    return v;
}

std::string type_of(const Json& obj, const Where& w) {
    // Sequences nest: a file of a thousand nested Sequences would only exhaust the stack.
    if (w.path.size() > 1000) w.fail("is nested too deeply");
    return need_string(obj, "type", w);
}

void unsupported(const std::string& type, const Where& w) {
    w.fail("type \"" + type + "\" is not supported");
}

std::string need_char(const Json& obj, const char* key, const Where& w) {
    const std::string s = need_string(obj, key, w);
    std::vector<attn::detail::CodePoint> cps;
    try {
        cps = attn::detail::decode_utf8(s);
    } catch (const Error&) {
        w.at(key).fail("is not UTF-8 text");
    }
    if (cps.size() != 1) w.at(key).fail("must be one character, not \"" + s + "\"");
    return s;
}

}  // namespace attn::tok::detail
