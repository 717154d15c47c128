// AttnScope core — JSON conversions of matrices and floats for sessions (private header).
// GPL-3.0-or-later.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "attn/util/types.hpp"

namespace attn::io::detail {

using ojson = nlohmann::ordered_json;

/// A float as the double nearest its shortest decimal form, so it prints briefly and reads
/// back to the same float; NaN/Inf (which JSON cannot hold) throw ArgumentError.
double float_value(float f);
/// A matrix as nested lists (rows); an empty matrix as [].
ojson matrix_json(const Matrix& m);
/// A vector as a list.
ojson vector_json(const Vector& v);

/// A list of each of ITEMS as EACH writes it: the one writer of a session's lists (heads,
/// components, sites, knock-outs…).
template <class Items, class Each>
ojson list_json(const Items& items, const Each& each) {
    ojson out = ojson::array();
    for (const auto& x : items)
        out.push_back(each(x));
    return out;
}

/// Typed reads that throw FormatError "<name>: <path> is …, expected …".
class JsonReader {
  public:
    explicit JsonReader(std::string name) : name_(std::move(name)) {}
    [[noreturn]] void fail(const std::string& path, const std::string& what) const;
    const ojson& member(const ojson& obj, const std::string& key, const std::string& path) const;
    std::string string(const ojson& j, const std::string& path) const;
    bool boolean(const ojson& j, const std::string& path) const;
    Index integer(const ojson& j, const std::string& path, Index min, Index max) const;
    std::uint64_t uint64(const ojson& j, const std::string& path) const;
    float number(const ojson& j, const std::string& path) const;
    Matrix matrix(const ojson& j, const std::string& path) const;
    Vector vector(const ojson& j, const std::string& path) const;
    const std::string& name() const { return name_; }

  private:
    std::string name_;
};

}  // namespace attn::io::detail
