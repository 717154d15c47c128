// AttnScope core — reading the .npz of `attnscope batch` (docs/datasets.md): per-example arrays,
// their aggregates and the names of the model and prompts, every shape checked. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attn/io/numpy/numpy_attention.hpp"

namespace attn::io {

/// A numeric array of a batch result, as float in C order.
struct BatchArray {
    std::vector<std::uint64_t> shape;
    std::vector<float> values;
    /// Number of elements (product of the shape; 1 for a scalar).
    std::uint64_t count() const;
};

/// One aggregated quantity: aggregate/<name>_mean, _std (population) and the count per element.
struct BatchStat {
    BatchArray mean, std;
    BatchArray count;  ///< aggregate/count, or aggregate/<name>_count when the file has one
};

/// A checked batch result: every per_example/<name> has the example axis first, every
/// aggregate/<name>_mean a _std of its shape (per_example/<name> without its first axis, when
/// both are there), aggregate/count a count ≤ the examples per element; no aggregate holds a
/// NaN or Inf.
struct BatchResult {
    std::string source;                                     ///< the file read
    std::uint64_t examples = 0;                             ///< E, the first axis of per_example/*
    std::map<std::string, BatchArray> numbers;              ///< every numeric member, by its key
    std::map<std::string, std::vector<std::string>> texts;  ///< every unicode member, by key
    /// The numeric member KEY, or nullptr.
    const BatchArray* find(const std::string& key) const;
    /// The unicode member KEY's element I ("" when there is none).
    std::string text(const std::string& key, std::size_t i = 0) const;
    /// The aggregates of NAME (aggregate/NAME_mean, _std, the count); nullptr-free: throws
    /// FormatError naming the file and the key when one is missing.
    BatchStat stat(const std::string& name) const;
    /// The names N with a per_example/N of shape [E, dims…] (dims.size() == RANK − 1 when RANK
    /// > 0), in key order.
    std::vector<std::string> per_example_names(std::size_t rank = 0) const;
};

/// Whether members look like a batch result: a key under per_example/ or aggregate/.
bool is_batch_result(const NpzMembers& members);
/// Whether the .npz file at PATH is a batch result (reads only the archive's directory).
bool is_batch_result_file(const std::string& path);

/// Checks and converts the members of a batch result; NAME is used in messages. Throws
/// FormatError naming the file, the key and the shapes (a missing aggregate, a shape that
/// disagrees, a NaN with its index).
BatchResult parse_batch_result(const NpzMembers& members, const std::string& name);
/// Reads and checks the batch result at PATH (see parse_batch_result).
BatchResult read_batch_result(const std::string& path);

/// "[2, 3, 4]" (a scalar: "[]").
std::string shape_text(const std::vector<std::uint64_t>& shape);

}  // namespace attn::io
