// AttnScope core — JSON conversions of matrices and floats for sessions. GPL-3.0-or-later.
#include "session_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "../../files/io_util.hpp"
#include "../json/json_util.hpp"
#include "attn/util/error.hpp"

namespace attn::io::detail {

double float_value(float f) {
    if (!std::isfinite(f))
        throw ArgumentError("session: cannot store a non-finite number (" + std::to_string(f) +
                            ") in JSON");
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf - 1, f);
    *r.ptr = '\0';
    return std::strtod(buf, nullptr);
}

ojson matrix_json(const Matrix& m) {
    ojson rows = ojson::array();
    for (Index i = 0; i < m.rows(); ++i) {
        ojson row = ojson::array();
        for (Index j = 0; j < m.cols(); ++j)
            row.push_back(float_value(m(i, j)));
        rows.push_back(std::move(row));
    }
    return rows;
}

ojson vector_json(const Vector& v) {
    ojson out = ojson::array();
    for (Index i = 0; i < v.size(); ++i)
        out.push_back(float_value(v(i)));
    return out;
}

void JsonReader::fail(const std::string& path, const std::string& what) const {
    detail::fail(name_, path + " " + what);
}

const ojson& JsonReader::member(const ojson& obj, const std::string& key,
                                const std::string& path) const {
    if (!obj.is_object()) fail(path, "is " + json_kind(obj) + ", expected an object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(path + "." + key, "is missing");
    return *it;
}

std::string JsonReader::string(const ojson& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "is " + json_kind(j) + ", expected a string");
    return j.get<std::string>();
}

bool JsonReader::boolean(const ojson& j, const std::string& path) const {
    if (!j.is_boolean()) fail(path, "is " + json_kind(j) + ", expected true or false");
    return j.get<bool>();
}

Index JsonReader::integer(const ojson& j, const std::string& path, Index min, Index max) const {
    if (!j.is_number_integer()) fail(path, "is " + json_kind(j) + ", expected an integer");
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
        fail(path, "is " + j.dump() + ", expected at most " + std::to_string(max));
    const auto v = j.get<std::int64_t>();
    if (v < min || v > max)
        fail(path, "is " + std::to_string(v) + ", expected " + std::to_string(min) + "…" +
                       std::to_string(max));
    return static_cast<Index>(v);
}

std::uint64_t JsonReader::uint64(const ojson& j, const std::string& path) const {
    if (!j.is_number_unsigned())
        fail(path, "is " + (j.is_number() ? j.dump() : json_kind(j)) +
                       ", expected a non-negative integer");
    return j.get<std::uint64_t>();
}

float JsonReader::number(const ojson& j, const std::string& path) const {
    if (!j.is_number()) fail(path, "is " + json_kind(j) + ", expected a number");
    const double d = j.get<double>();
    const float f = narrow(d);
    if (!std::isfinite(f)) fail(path, "is " + j.dump() + ", outside the range of a float");
    return f;
}

Matrix JsonReader::matrix(const ojson& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "is " + json_kind(j) + ", expected a list of rows");
    if (j.empty()) return {};
    const std::string p0 = path + "[0]";
    if (!j[0].is_array()) fail(p0, "is " + json_kind(j[0]) + ", expected a list of numbers");
    const std::size_t cols = j[0].size();
    for (std::size_t i = 0; i < j.size(); ++i) {  // all rows checked before allocating
        const std::string rp = path + "[" + std::to_string(i) + "]";
        if (!j[i].is_array()) fail(rp, "is " + json_kind(j[i]) + ", expected a list of numbers");
        if (j[i].size() != cols)
            fail(rp, "has " + std::to_string(j[i].size()) + " entries, expected " +
                         std::to_string(cols));
    }
    Matrix m(static_cast<Index>(j.size()), static_cast<Index>(cols));
    for (std::size_t i = 0; i < j.size(); ++i) {
        const std::string rp = path + "[" + std::to_string(i) + "]";
        if (!j[i].is_array()) fail(rp, "is " + json_kind(j[i]) + ", expected a list of numbers");
        if (j[i].size() != cols)
            fail(rp, "has " + std::to_string(j[i].size()) + " entries, expected " +
                         std::to_string(cols));
        for (std::size_t k = 0; k < cols; ++k)
            m(static_cast<Index>(i), static_cast<Index>(k)) =
                number(j[i][k], rp + "[" + std::to_string(k) + "]");
    }
    return m;
}

Vector JsonReader::vector(const ojson& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "is " + json_kind(j) + ", expected a list of numbers");
    Vector v(static_cast<Index>(j.size()));
    for (std::size_t i = 0; i < j.size(); ++i)
        v(static_cast<Index>(i)) = number(j[i], path + "[" + std::to_string(i) + "]");
    return v;
}

}  // namespace attn::io::detail
