// AttnScope core — reading the .npz of `attnscope batch` (see batch_result.hpp).
// GPL-3.0-or-later.
#include "attn/io/numpy/batch_result.hpp"

#include <cmath>
#include <set>
#include <string_view>

#include "../../files/io_util.hpp"
#include "attn/files/mapped_file.hpp"
#include "attn/io/numpy/npy.hpp"
#include "npz_members.hpp"

namespace attn::io {
namespace {

constexpr std::string_view kPerExample = "per_example/";
constexpr std::string_view kAggregate = "aggregate/";

bool batch_key(std::string_view key) {
    return key.starts_with(kPerExample) || key.starts_with(kAggregate);
}

/// Refuses element F of ARRAY (C order), naming the file and key (WHERE), its index and WHY.
[[noreturn]] void refuse_element(const BatchArray& array, std::size_t f, const std::string& where,
                                 const std::string& why) {
    std::vector<std::uint64_t> index(array.shape.size());
    std::uint64_t rest = f;
    for (std::size_t k = index.size(); k-- > 0;) {
        index[k] = rest % array.shape[k];
        rest /= array.shape[k];
    }
    detail::fail(where, "holds " + why + " at " + detail::index_string(index) + " (shape " +
                            shape_text(array.shape) + ")");
}

/// Refuses a NaN or Inf in ARRAY.
void require_finite_values(const BatchArray& array, const std::string& where) {
    for (std::size_t f = 0; f < array.values.size(); ++f)
        if (!std::isfinite(array.values[f]))
            refuse_element(array, f, where,
                           std::isnan(array.values[f])
                               ? "NaN; only a score some example leaves undefined may be NaN"
                               : "Inf");
}

std::vector<std::uint64_t> tail(const std::vector<std::uint64_t>& shape) {
    return {shape.begin() + 1, shape.end()};
}

}  // namespace

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

std::uint64_t BatchArray::count() const {
    std::uint64_t n = 1;
    for (std::uint64_t d : shape)
        n *= d;
    return n;
}

const BatchArray* BatchResult::find(const std::string& key) const {
    const auto it = numbers.find(key);
    return it == numbers.end() ? nullptr : &it->second;
}

std::string BatchResult::text(const std::string& key, std::size_t i) const {
    const auto it = texts.find(key);
    return it == texts.end() || i >= it->second.size() ? std::string() : it->second[i];
}

BatchStat BatchResult::stat(const std::string& name) const {
    const std::string base = std::string(kAggregate) + name;
    BatchStat s;
    for (auto [suffix, out] : {std::pair{"_mean", &s.mean}, std::pair{"_std", &s.std}}) {
        const BatchArray* a = find(base + suffix);
        if (!a) detail::fail(detail::base_name(source), "has no " + base + suffix);
        *out = *a;
    }
    const BatchArray* count = find(base + "_count");
    s.count = count ? *count : *find(std::string(kAggregate) + "count");
    return s;
}

std::vector<std::string> BatchResult::per_example_names(std::size_t rank) const {
    std::vector<std::string> out;
    for (const auto& [key, array] : numbers)
        if (key.starts_with(kPerExample) && (rank == 0 || array.shape.size() == rank))
            out.push_back(key.substr(kPerExample.size()));
    return out;
}

bool is_batch_result(const NpzMembers& members) {
    for (const auto& [key, bytes] : members)
        if (batch_key(key)) return true;
    return false;
}

bool is_batch_result_file(const std::string& path) {
    const std::string name = detail::base_name(path);
    MappedFile file(path);
    detail::ZipPtr z = detail::open_zip(file.bytes(), name);
    const zip_int64_t n = zip_get_num_entries(z.get(), 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* raw = zip_get_name(z.get(), static_cast<zip_uint64_t>(i), 0);
        if (raw && batch_key(raw)) return true;
    }
    return false;
}

BatchResult parse_batch_result(const NpzMembers& members, const std::string& name) {
    BatchResult r;
    r.source = name;
    for (const auto& [key, bytes] : members) {
        const NpyView view(bytes, name + ": " + key);
        if (r.numbers.count(key) || r.texts.count(key))
            detail::fail(name, "holds " + key + " twice");
        if (view.header().numeric())
            r.numbers[key] = BatchArray{view.header().shape, view.to_floats(false)};
        else
            r.texts[key] = view.to_strings();
    }
    const std::string count_key = std::string(kAggregate) + "count";
    const BatchArray* count = r.find(count_key);
    if (!count)
        detail::fail(name, "is a partial batch result: it has no " + count_key +
                               " (the number of examples aggregated)");
    if (count->count() != 1 || !(count->values[0] >= 0) ||
        count->values[0] != std::floor(count->values[0]))
        detail::fail(name,
                     count_key + " has shape " + shape_text(count->shape) +
                         (count->count() == 1 ? " and holds " + std::to_string(count->values[0])
                                              : std::string()) +
                         "; expected one whole number, the examples aggregated");
    r.examples = std::uint64_t(count->values[0]);
    // Scores per token (attribute) are ragged: one run of all examples' tokens, cut by
    // examples/token_offsets (E + 1 offsets from 0, the last the tokens' total).
    std::uint64_t tokens = 0;
    bool ragged = false;
    if (const BatchArray* offsets = r.find("examples/token_offsets"); offsets) {
        if (offsets->shape != std::vector<std::uint64_t>{r.examples + 1} || offsets->values[0] != 0)
            detail::fail(name, "examples/token_offsets has shape " + shape_text(offsets->shape) +
                                   "; expected E + 1 = " + std::to_string(r.examples + 1) +
                                   " offsets from 0");
        for (std::size_t e = 0; e < r.examples; ++e)
            if (offsets->values[e + 1] < offsets->values[e])
                detail::fail(name, "examples/token_offsets decrease at " + std::to_string(e + 1));
        tokens = std::uint64_t(offsets->values.back());
        ragged = true;
    }
    std::set<std::string> checked;  // the arrays whose finiteness an aggregate's rule settled
    for (const auto& [key, array] : r.numbers) {
        if (!key.starts_with(kPerExample)) continue;
        if (ragged && array.shape == std::vector<std::uint64_t>{tokens}) continue;
        if (array.shape.empty() || array.shape[0] != r.examples)
            detail::fail(name, key + " has shape " + shape_text(array.shape) + " but " + count_key +
                                   " is " + std::to_string(r.examples) +
                                   ": every per_example array has the examples on its first axis");
    }
    for (const auto& [key, array] : r.numbers) {
        if (!key.starts_with(kAggregate) || !key.ends_with("_mean")) continue;
        const std::string stem = key.substr(kAggregate.size(), key.size() - kAggregate.size() - 5);
        const std::string std_key = std::string(kAggregate) + stem + "_std";
        const std::string own_key = std::string(kAggregate) + stem + "_count";
        const std::string per_key = std::string(kPerExample) + stem;
        const BatchArray* sd = r.find(std_key);
        if (!sd) detail::fail(name, "has " + key + " but no " + std_key);
        if (sd->shape != array.shape)
            detail::fail(name, std_key + " has shape " + shape_text(sd->shape) + " but " + key +
                                   " has " + shape_text(array.shape));
        const BatchArray* per = r.find(per_key);
        if (per) {
            // A per-example scalar's aggregate is [1].
            const std::vector<std::uint64_t> want =
                per->shape.size() == 1 ? std::vector<std::uint64_t>{1} : tail(per->shape);
            if (array.shape != want)
                detail::fail(name, key + " has shape " + shape_text(array.shape) + " but " +
                                       per_key + " has " + shape_text(per->shape) +
                                       ": the aggregate over the examples is " + shape_text(want));
        }
        // Values may be undefined (NaN) only where a count per element says how many examples
        // define each one (census_scores); an element none defines (every element, when no
        // example was kept) is NaN in mean and std.
        const BatchArray* own = r.find(own_key);
        if (own && own->shape != array.shape)
            detail::fail(name, own_key + " has shape " + shape_text(own->shape) + " but " + key +
                                   " has " + shape_text(array.shape));
        for (const auto& [agg, where] : {std::pair{&array, key}, std::pair{sd, std_key}})
            for (std::size_t i = 0; i < agg->values.size(); ++i) {
                const float v = agg->values[i];
                // Undefined where no example defines the element (none at all: E = 0).
                if (std::isnan(v) && (own ? own->values[i] == 0 : r.examples == 0)) continue;
                if (!std::isfinite(v))
                    refuse_element(*agg, i, name + ": " + where,
                                   std::isnan(v) ? "NaN where examples define the value" : "Inf");
                if (agg == sd && v < 0)
                    refuse_element(*agg, i, name + ": " + where,
                                   "a negative standard deviation " + std::to_string(v));
            }
        checked.insert(key);
        checked.insert(std_key);
        if (per && own) checked.insert(per_key);
    }
    for (const auto& [key, array] : r.numbers)
        if (!checked.count(key)) require_finite_values(array, name + ": " + key);
    // A per-example array of floats without its aggregates is a partial file.
    for (const auto& [key, array] : r.numbers) {
        if (!key.starts_with(kPerExample)) continue;
        const std::string stem = key.substr(kPerExample.size());
        const std::string mean = std::string(kAggregate) + stem + "_mean";
        if (!r.find(mean) && r.find(std::string(kAggregate) + stem + "_std"))
            detail::fail(name, "has " + key + " and its _std but no " + mean);
    }
    return r;
}

BatchResult read_batch_result(const std::string& path) {
    BatchResult r = parse_batch_result(read_npz(path), detail::base_name(path));
    r.source = path;
    return r;
}

}  // namespace attn::io
