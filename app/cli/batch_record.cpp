// AttnScope — `attnscope batch`: the analyses' per-example arrays and one example's record.
// GPL-3.0-or-later.
#include "cli/batch_record.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "attn/analysis/census.hpp"

namespace cli::batch {

std::optional<Analysis> analysisNamed(std::string_view name) {
    for (const Analysis a : {Analysis::Patch, Analysis::Ablate, Analysis::Census, Analysis::Compute,
                             Analysis::Attribute})
        if (name == analysisName(a)) return a;
    return std::nullopt;
}

const char* analysisName(Analysis a) {
    switch (a) {
        case Analysis::Patch:
            return "patch";
        case Analysis::Ablate:
            return "ablate";
        case Analysis::Census:
            return "census";
        case Analysis::Attribute:
            return "attribute";
        case Analysis::Compute:
            break;
    }
    return "compute";
}

namespace {

/// A fixed-shape field (an empty SHAPE: one value per example).
Field field(std::string key, Kind kind, std::vector<std::uint64_t> shape = {}) {
    Field f;
    f.key = std::move(key);
    f.kind = kind;
    f.shape = std::move(shape);
    return f;
}

/// A ragged int32 field: token ids.
Field tokenField(std::string key) {
    Field f = field(std::move(key), Kind::I32);
    f.ragged = true;
    return f;
}

/// A ragged float32 field: one score per token.
Field tokenScores(std::string key) {
    Field f = field(std::move(key), Kind::F32);
    f.ragged = true;
    return f;
}

std::vector<Field> attributeSchema(const AttributeSettings& s) {
    std::vector<Field> out{
        field("examples/text", Kind::Text),     field("examples/answer", Kind::Text),
        tokenField("examples/token_ids"),       field("per_example/position", Kind::I32),
        field("per_example/target", Kind::I32), field("per_example/logit", Kind::F64)};
    const std::vector<std::string> names = agreementNames(s);
    for (const std::string& m : names)
        out.push_back(tokenScores("per_example/" + m));
    if (std::find(s.methods.begin(), s.methods.end(), "integrated_gradients") != s.methods.end())
        out.push_back(field("per_example/ig_delta", Kind::F64));
    const std::uint64_t K = std::uint64_t(s.faithfulness), M = names.size();
    for (const std::string& m : names)
        out.push_back(field("per_example/faith_" + m, Kind::F64, {K + 1}));
    Field agreement = field("per_example/agreement", Kind::F64, {M, M});
    agreement.counted = true;  // τ-b is NaN where a method scores every token alike
    out.push_back(agreement);
    return out;
}

}  // namespace

const std::vector<std::string>& tokenMethods() {
    static const std::vector<std::string> names{
        "saliency",     "input_x_gradient", "integrated_gradients",
        "alti_rollout", "attention_flow",   "rollout"};
    return names;
}

std::vector<std::string> agreementNames(const AttributeSettings& s) {
    std::vector<std::string> names{"attention"};
    for (const std::string& m : tokenMethods())
        if (std::find(s.methods.begin(), s.methods.end(), m) != s.methods.end()) names.push_back(m);
    return names;
}

std::string attributeOptions(const AttributeSettings& s) {
    std::string methods;
    for (const std::string& m : agreementNames(s))
        if (m != "attention") methods += (methods.empty() ? "" : ",") + m;
    return "methods=" + methods + " steps=" + std::to_string(s.steps) +
           " faithfulness=" + std::to_string(s.faithfulness);
}

std::optional<AttributeSettings> attributeSettingsOf(const std::string& options) {
    AttributeSettings s;
    bool methods = false, steps = false, faithfulness = false;
    std::istringstream words(options);
    for (std::string w; words >> w;) {
        const std::size_t eq = w.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = w.substr(0, eq), value = w.substr(eq + 1);
        try {
            if (key == "methods") {
                methods = true;
                std::istringstream list(value);
                for (std::string m; std::getline(list, m, ',');)
                    if (std::find(tokenMethods().begin(), tokenMethods().end(), m) !=
                        tokenMethods().end())
                        s.methods.push_back(m);
                    else
                        return std::nullopt;
            } else if (key == "steps") {
                s.steps = std::stoi(value), steps = true;
            } else if (key == "faithfulness") {
                s.faithfulness = std::stoi(value), faithfulness = true;
            }
        } catch (const std::exception&) {  // not a number: not options attribute wrote
            return std::nullopt;
        }
    }
    if (!methods || !steps || !faithfulness || s.steps < 1 || s.faithfulness < 0 ||
        s.faithfulness > (1 << 20))
        return std::nullopt;
    return s;
}

std::vector<Field> schema(Analysis a, int layers, int heads, const AttributeSettings& attribute) {
    const std::uint64_t L = std::uint64_t(layers), H = std::uint64_t(heads);
    switch (a) {
        case Analysis::Patch:
            return {field("examples/clean", Kind::Text),
                    field("examples/corrupt", Kind::Text),
                    field("examples/answer", Kind::Text),
                    field("examples/wrong", Kind::Text),
                    field("examples/answer_id", Kind::I32),
                    field("examples/wrong_id", Kind::I32),
                    tokenField("examples/token_ids"),
                    tokenField("examples/corrupt_token_ids"),
                    field("per_example/head_patch", Kind::F32, {L, H}),
                    field("per_example/clean_diff", Kind::F64),
                    field("per_example/corrupt_diff", Kind::F64),
                    field("per_example/logit_scale", Kind::F64)};
        case Analysis::Ablate:
            return {field("examples/text", Kind::Text),
                    field("examples/answer", Kind::Text),
                    field("examples/answer_id", Kind::I32),
                    tokenField("examples/token_ids"),
                    field("per_example/answer_logprob", Kind::F64),
                    field("per_example/ablate_effect", Kind::F64, {L, H})};
        case Analysis::Census: {
            Field scores = field("per_example/census_scores", Kind::F64,
                                 {L, H, std::uint64_t(attn::kPatternCount)});
            scores.counted = true;
            Field label = field("per_example/census_label", Kind::I32, {L, H});
            label.categories = attn::kPatternCount + 1;
            return {field("examples/text", Kind::Text), tokenField("examples/token_ids"), scores,
                    label};
        }
        case Analysis::Attribute:
            return attributeSchema(attribute);
        case Analysis::Compute:
            break;
    }
    return {field("examples/text", Kind::Text), tokenField("examples/token_ids"),
            field("per_example/entropy", Kind::F64, {L, H}),
            field("per_example/max_weight", Kind::F64, {L, H}),
            field("per_example/mean_distance", Kind::F64, {L, H})};
}

const char* shapeKey(Analysis a) {
    switch (a) {
        case Analysis::Patch:
            return "per_example/head_patch";
        case Analysis::Ablate:
            return "per_example/ablate_effect";
        case Analysis::Census:
            return "per_example/census_label";
        case Analysis::Attribute:
            return nullptr;
        case Analysis::Compute:
            break;
    }
    return "per_example/entropy";
}

namespace {

template <class T>
Value bytesValue(const T* v, std::size_t n) {
    Value out;
    out.bytes.resize(n * sizeof(T));
    if (n) std::memcpy(out.bytes.data(), v, n * sizeof(T));  // x86-64: little-endian already
    return out;
}

void putU64(std::string& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        out += char((v >> (8 * i)) & 0xFF);
}

/// Reads a u64 at *AT of BYTES, advancing *AT; false past the end.
bool takeU64(std::string_view bytes, std::size_t* at, std::uint64_t* v) {
    if (bytes.size() - *at < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i)
        *v |= std::uint64_t(static_cast<unsigned char>(bytes[*at + std::size_t(i)])) << (8 * i);
    *at += 8;
    return true;
}

}  // namespace

std::size_t itemSize(Kind k) {
    return k == Kind::I64 || k == Kind::F64 ? 8 : 4;
}

Value textValue(std::string text) {
    Value v;
    v.text = std::move(text);
    return v;
}
Value i32Value(const std::vector<std::int32_t>& v) {
    return bytesValue(v.data(), v.size());
}
Value f32Value(const float* v, std::size_t n) {
    return bytesValue(v, n);
}
Value f64Value(const std::vector<double>& v) {
    return bytesValue(v.data(), v.size());
}

std::string serialize(const Entry& entry) {
    std::string out(1, entry.skipped ? 'S' : 'E');
    putU64(out, std::uint64_t(entry.line));
    if (entry.skipped) return out + entry.reason;
    for (const Value& v : entry.values) {
        const std::size_t n = v.bytes.empty() ? v.text.size() : v.bytes.size();
        putU64(out, n);
        if (v.bytes.empty())
            out += v.text;
        else
            out.append(reinterpret_cast<const char*>(v.bytes.data()), n);
    }
    return out;
}

std::optional<Entry> parseEntry(std::string_view bytes, const std::vector<Field>& fields) {
    if (bytes.empty() || (bytes[0] != 'E' && bytes[0] != 'S')) return std::nullopt;
    std::size_t at = 1;
    std::uint64_t line = 0;
    if (!takeU64(bytes, &at, &line) || line == 0 || line > (1ULL << 62)) return std::nullopt;
    Entry e;
    e.line = std::int64_t(line);
    e.skipped = bytes[0] == 'S';
    if (e.skipped) {
        e.reason = std::string(bytes.substr(at));
        return e;
    }
    for (const Field& f : fields) {
        std::uint64_t n = 0;
        if (!takeU64(bytes, &at, &n) || n > bytes.size() - at) return std::nullopt;
        const std::string_view body = bytes.substr(at, std::size_t(n));
        at += std::size_t(n);
        Value v;
        if (f.kind == Kind::Text) {
            v.text = std::string(body);
        } else {
            std::uint64_t want = itemSize(f.kind);
            for (const std::uint64_t d : f.shape)
                want *= d;
            if (f.ragged ? n % itemSize(f.kind) != 0 : n != want) return std::nullopt;
            const auto* p = reinterpret_cast<const std::byte*>(body.data());
            v.bytes.assign(p, p + body.size());
        }
        e.values.push_back(std::move(v));
    }
    if (at != bytes.size()) return std::nullopt;
    return e;
}

}  // namespace cli::batch
