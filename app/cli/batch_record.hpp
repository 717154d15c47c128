// AttnScope — `attnscope batch`: what each analysis keeps per example, one example's record
// (as the journal holds it) and the .npz made of the records (docs/datasets.md, "Output").
// GPL-3.0-or-later.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/io/numpy/numpy_attention.hpp"

namespace cli::batch {

/// The analyses `batch` runs.
enum class Analysis { Patch, Ablate, Census, Compute, Attribute };

/// The analysis called NAME ("patch", …), or none.
std::optional<Analysis> analysisNamed(std::string_view name);
/// The name of A.
const char* analysisName(Analysis a);

/// Element types of the arrays: fixed-width unicode, int32, int64, float32, float64.
enum class Kind : std::uint8_t { Text, I32, I64, F32, F64 };

/// One per-example array: its key in the output, element type and shape per example (empty: a
/// scalar; ragged: a 1-D array whose length varies, stored concatenated with offsets).
struct Field {
    std::string key;
    Kind kind = Kind::F64;
    std::vector<std::uint64_t> shape;
    bool ragged = false;
    bool counted = false;  ///< aggregate/<name>_count: how many examples define each value
    int categories = 0;    ///< > 0: aggregate/<name>_counts of each category (int fields)
};

/// What `--analysis attribute` keeps: the token-level methods besides attention, in core's
/// order (attn::attrib::method_names), integrated gradients' steps and the erasure curves' K.
struct AttributeSettings {
    std::vector<std::string> methods;
    int steps = 32;
    int faithfulness = 8;
};

/// The token-level attribution methods (a score per token), in core's order.
const std::vector<std::string>& tokenMethods();
/// The names of the token scores an attribute run ranks and compares: "attention", then S's.
std::vector<std::string> agreementNames(const AttributeSettings& s);
/// S as the words of the output's options text ("methods=… steps=… faithfulness=…").
std::string attributeOptions(const AttributeSettings& s);
/// The settings in an output's OPTIONS text (attributeOptions' inverse); none when absent.
std::optional<AttributeSettings> attributeSettingsOf(const std::string& options);

/// The per-example arrays of analysis A on a model of L layers and H heads, in output order
/// (ATTRIBUTE: what an attribute run keeps).
std::vector<Field> schema(Analysis a, int layers, int heads,
                          const AttributeSettings& attribute = {});
/// The per-example key whose shape [E, L, H, …] gives a result's layers and heads (none for
/// attribute, whose results are per token).
const char* shapeKey(Analysis a);

/// One value of a Field for one example: the element bytes (little-endian), or the text.
struct Value {
    std::vector<std::byte> bytes;
    std::string text;
};

/// One dataset line's outcome: an example's values (one per Field) or a skipped line.
struct Entry {
    std::int64_t line = 0;  ///< from 1
    bool skipped = false;
    std::string reason;         ///< skipped: why
    std::vector<Value> values;  ///< an example: in schema order
};

/// What every output holds besides the examples.
struct Header {
    std::string analysis, model, dataset, options;
    std::array<std::string, 3> hashes;  ///< model, dataset, options (SHA-256, hex)
    std::int64_t shardK = 0, shardN = 1;
};

/// Bytes per element of K (4 for a unicode code point).
std::size_t itemSize(Kind k);
/// Values of each element type.
Value textValue(std::string text);
Value i32Value(const std::vector<std::int32_t>& v);
Value f32Value(const float* v, std::size_t n);
Value f64Value(const std::vector<double>& v);

/// ENTRY as bytes (the journal's record body).
std::string serialize(const Entry& entry);
/// The entry of BYTES when they are a well-formed entry of FIELDS, else none.
std::optional<Entry> parseEntry(std::string_view bytes, const std::vector<Field>& fields);

/// The output's members: HEADER, the examples and skipped lines of ENTRIES (in dataset order),
/// and the aggregates computed from the examples in that order.
attn::io::NpzMembers assemble(const Header& header, Analysis a, const std::vector<Field>& fields,
                              const std::vector<Entry>& entries);

/// The entries stored in an output's MEMBERS (the inverse of assemble's examples and skipped
/// lines); throws attn::FormatError naming NAME and the key when they do not fit FIELDS.
std::vector<Entry> entriesOf(const attn::io::NpzMembers& members, const std::vector<Field>& fields,
                             const std::string& name);

/// The 1-D unicode, or int64, array KEY of an output's MEMBERS; throws FormatError naming NAME.
std::vector<std::string> textArray(const attn::io::NpzMembers& members, const std::string& key,
                                   const std::string& name);
std::vector<std::int64_t> int64Array(const attn::io::NpzMembers& members, const std::string& key,
                                     const std::string& name);

/// Writes MEMBERS to PATH as an .npz of fixed member dates: the same members, the same bytes.
void writeReproducible(const std::string& path, const attn::io::NpzMembers& members);

}  // namespace cli::batch
