// AttnScope — `attnscope batch`: the output .npz made of the examples' records, the aggregates
// over them, and the records read back from an output (merge). GPL-3.0-or-later.
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

#include "attn/analysis/census.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/zip/zip_writer.hpp"
#include "attn/util/error.hpp"
#include "cli/batch_record.hpp"

namespace cli::batch {

namespace {

const char* descrOf(Kind k) {
    switch (k) {
        case Kind::I32:
            return "<i4";
        case Kind::I64:
            return "<i8";
        case Kind::F32:
            return "<f4";
        case Kind::F64:
        case Kind::Text:
            break;
    }
    return "<f8";
}

std::vector<std::byte> i64Npy(const std::vector<std::int64_t>& v) {
    const std::uint64_t shape[] = {v.size()};
    return attn::io::npy_raw_bytes("<i8", shape,
                                   {reinterpret_cast<const std::byte*>(v.data()), v.size() * 8});
}

std::vector<std::byte> f64Npy(const std::vector<double>& v, std::vector<std::uint64_t> shape) {
    if (shape.empty()) shape = {1};
    return attn::io::npy_raw_bytes("<f8", shape,
                                   {reinterpret_cast<const std::byte*>(v.data()), v.size() * 8});
}

std::vector<std::byte> textNpy(const std::vector<std::string>& v) {
    return attn::io::npy_string_bytes(v);
}

std::uint64_t elementCount(const std::vector<std::uint64_t>& shape) {
    std::uint64_t n = 1;
    for (const std::uint64_t d : shape)
        n *= d;
    return n;
}

double elementAt(const Value& v, Kind k, std::size_t i) {
    if (k == Kind::F32) {
        float x;
        std::memcpy(&x, v.bytes.data() + i * 4, 4);
        return double(x);
    }
    double x;
    std::memcpy(&x, v.bytes.data() + i * 8, 8);
    return x;
}

/// Mean and population deviation of each element of field F (index FI) over EXAMPLES, in their
/// order, over the finite values; the count of those.
void aggregateField(const Field& f, std::size_t fi, const std::vector<const Entry*>& examples,
                    attn::io::NpzMembers& out) {
    const std::string name = f.key.substr(f.key.find('/') + 1);
    const std::size_t n = std::size_t(elementCount(f.shape));
    std::vector<double> sum(n, 0.0), mean(n), sd(n);
    std::vector<std::int64_t> count(n, 0);
    for (const Entry* e : examples)
        for (std::size_t i = 0; i < n; ++i)
            if (const double x = elementAt(e->values[fi], f.kind, i); std::isfinite(x))
                sum[i] += x, ++count[i];
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i)
        mean[i] = count[i] ? sum[i] / double(count[i]) : nan;
    std::vector<double> squares(n, 0.0);
    for (const Entry* e : examples)
        for (std::size_t i = 0; i < n; ++i)
            if (const double x = elementAt(e->values[fi], f.kind, i); std::isfinite(x))
                squares[i] += (x - mean[i]) * (x - mean[i]);
    for (std::size_t i = 0; i < n; ++i)
        sd[i] = count[i] ? std::sqrt(squares[i] / double(count[i])) : nan;
    out.emplace_back("aggregate/" + name + "_mean", f64Npy(mean, f.shape));
    out.emplace_back("aggregate/" + name + "_std", f64Npy(sd, f.shape));
    if (f.counted) {
        std::vector<std::uint64_t> shape = f.shape;
        out.emplace_back("aggregate/" + name + "_count",
                         attn::io::npy_raw_bytes(
                             "<i8", shape,
                             {reinterpret_cast<const std::byte*>(count.data()), count.size() * 8}));
    }
}

/// How often each category wins each element of the int field F (index FI).
void countCategories(const Field& f, std::size_t fi, const std::vector<const Entry*>& examples,
                     attn::io::NpzMembers& out) {
    const std::string name = f.key.substr(f.key.find('/') + 1);
    const std::size_t n = std::size_t(elementCount(f.shape)), c = std::size_t(f.categories);
    std::vector<std::int64_t> counts(n * c, 0);
    for (const Entry* e : examples)
        for (std::size_t i = 0; i < n; ++i) {
            std::int32_t k;
            std::memcpy(&k, e->values[fi].bytes.data() + i * 4, 4);
            if (k >= 0 && std::size_t(k) < c) ++counts[i * c + std::size_t(k)];
        }
    std::vector<std::uint64_t> shape = f.shape;
    shape.push_back(c);
    out.emplace_back(
        "aggregate/" + name + "_counts",
        attn::io::npy_raw_bytes(
            "<i8", shape, {reinterpret_cast<const std::byte*>(counts.data()), counts.size() * 8}));
}

}  // namespace

attn::io::NpzMembers assemble(const Header& header, Analysis a, const std::vector<Field>& fields,
                              const std::vector<Entry>& entries) {
    attn::io::NpzMembers out;
    out.emplace_back("analysis", textNpy({header.analysis}));
    out.emplace_back("model", textNpy({header.model}));
    out.emplace_back("dataset", textNpy({header.dataset}));
    out.emplace_back("options", textNpy({header.options}));
    out.emplace_back("hashes",
                     textNpy(std::vector<std::string>(header.hashes.begin(), header.hashes.end())));
    out.emplace_back("shard", i64Npy({header.shardK, header.shardN}));
    if (a == Analysis::Census) {
        std::vector<std::string> names;
        for (const attn::HeadPattern p :
             {attn::HeadPattern::PreviousToken, attn::HeadPattern::Self,
              attn::HeadPattern::FirstToken, attn::HeadPattern::Local, attn::HeadPattern::Broad,
              attn::HeadPattern::Induction, attn::HeadPattern::Mixed})
            names.emplace_back(attn::pattern_name(p));
        out.emplace_back("patterns", textNpy(names));
    }
    if (a == Analysis::Attribute) {  // the rows and columns of per_example/agreement
        std::vector<std::string> names;
        for (const Field& f : fields)
            if (f.key.starts_with("per_example/faith_"))
                names.push_back(f.key.substr(std::string_view("per_example/faith_").size()));
        out.emplace_back("agreement_methods", textNpy(names));
    }
    std::vector<const Entry*> examples;
    std::vector<std::int64_t> lines, skippedLines;
    std::vector<std::string> reasons;
    for (const Entry& e : entries) {
        if (e.skipped) {
            skippedLines.push_back(e.line);
            reasons.push_back(e.reason);
        } else {
            examples.push_back(&e);
            lines.push_back(e.line);
        }
    }
    const std::uint64_t E = examples.size();
    out.emplace_back("examples/line", i64Npy(lines));
    // The token counts and offsets of the ragged fields (their lengths are equal: patch's two
    // prompts have the same token count).
    std::vector<std::int64_t> counts, offsets{0};
    std::size_t firstRagged = fields.size();
    for (std::size_t fi = 0; fi < fields.size() && firstRagged == fields.size(); ++fi)
        if (fields[fi].ragged) firstRagged = fi;
    for (const Entry* e : examples) {
        const std::int64_t n = firstRagged < fields.size()
                                   ? std::int64_t(e->values[firstRagged].bytes.size() /
                                                  itemSize(fields[firstRagged].kind))
                                   : 0;
        counts.push_back(n);
        offsets.push_back(offsets.back() + n);
    }
    out.emplace_back("examples/n_tokens", i64Npy(counts));
    for (std::size_t fi = 0; fi < fields.size(); ++fi) {
        const Field& f = fields[fi];
        if (fi == firstRagged) out.emplace_back("examples/token_offsets", i64Npy(offsets));
        if (f.kind == Kind::Text) {
            std::vector<std::string> texts;
            for (const Entry* e : examples)
                texts.push_back(e->values[fi].text);
            out.emplace_back(f.key, textNpy(texts));
            continue;
        }
        std::vector<std::byte> data;
        for (const Entry* e : examples)
            data.insert(data.end(), e->values[fi].bytes.begin(), e->values[fi].bytes.end());
        std::vector<std::uint64_t> shape;
        if (f.ragged) {
            shape = {data.size() / itemSize(f.kind)};
        } else {
            shape = {E};
            shape.insert(shape.end(), f.shape.begin(), f.shape.end());
        }
        out.emplace_back(f.key, attn::io::npy_raw_bytes(descrOf(f.kind), shape, data));
    }
    out.emplace_back("skipped/line", i64Npy(skippedLines));
    out.emplace_back("skipped/reason", textNpy(reasons));
    out.emplace_back("aggregate/count", i64Npy({std::int64_t(E)}));
    for (std::size_t fi = 0; fi < fields.size(); ++fi) {
        const Field& f = fields[fi];
        // A ragged field (a score per token) has no per-element mean across examples.
        if (!f.key.starts_with("per_example/") || f.ragged) continue;
        if (f.kind == Kind::F32 || f.kind == Kind::F64) aggregateField(f, fi, examples, out);
        if (f.categories > 0) countCategories(f, fi, examples, out);
    }
    return out;
}

namespace {

/// A member's checked header and its data bytes.
struct Array {
    attn::io::NpyHeader header;
    std::span<const std::byte> data;
    std::vector<std::byte> const* file = nullptr;
    std::string name;
};

/// The member KEY of MEMBERS; throws FormatError naming NAME when it is absent or not of DESCR
/// (empty: any) with NDIM dimensions.
Array npzMember(const attn::io::NpzMembers& members, const std::string& key,
                const std::string& name, attn::io::NpyType type, std::size_t ndim) {
    for (const auto& [k, bytes] : members)
        if (k == key) {
            Array a;
            a.name = name + ": " + key;
            a.header = attn::io::parse_npy_header(bytes, a.name);
            if (a.header.type != type || a.header.big_endian || a.header.fortran_order ||
                a.header.shape.size() != ndim)
                throw attn::FormatError(a.name + ": " + a.header.dtype_name() + " of " +
                                        std::to_string(a.header.shape.size()) +
                                        " dimensions is not what attnscope batch writes");
            a.data = std::span<const std::byte>(bytes).subspan(a.header.data_offset);
            a.file = &bytes;
            return a;
        }
    throw attn::FormatError(name + ": no '" + key + "' array (not an attnscope batch result)");
}

std::vector<std::int64_t> int64s(const Array& a) {
    std::vector<std::int64_t> out(a.data.size() / 8);
    if (!out.empty()) std::memcpy(out.data(), a.data.data(), out.size() * 8);
    return out;
}

std::vector<std::string> textsOf(const Array& a) {
    return attn::io::NpyView(*a.file, a.name).to_strings();
}

attn::io::NpyType npyType(Kind k) {
    switch (k) {
        case Kind::Text:
            return attn::io::NpyType::Unicode;
        case Kind::I32:
            return attn::io::NpyType::Int32;
        case Kind::I64:
            return attn::io::NpyType::Int64;
        case Kind::F32:
            return attn::io::NpyType::Float32;
        case Kind::F64:
            break;
    }
    return attn::io::NpyType::Float64;
}

}  // namespace

std::vector<std::string> textArray(const attn::io::NpzMembers& members, const std::string& key,
                                   const std::string& name) {
    return textsOf(npzMember(members, key, name, attn::io::NpyType::Unicode, 1));
}

std::vector<std::int64_t> int64Array(const attn::io::NpzMembers& members, const std::string& key,
                                     const std::string& name) {
    return int64s(npzMember(members, key, name, attn::io::NpyType::Int64, 1));
}

std::vector<Entry> entriesOf(const attn::io::NpzMembers& members, const std::vector<Field>& fields,
                             const std::string& name) {
    using attn::FormatError;
    const std::vector<std::int64_t> lines = int64Array(members, "examples/line", name);
    const std::vector<std::int64_t> skipped = int64Array(members, "skipped/line", name);
    const std::vector<std::string> reasons = textArray(members, "skipped/reason", name);
    if (reasons.size() != skipped.size())
        throw FormatError(name + ": skipped/line and skipped/reason differ in length");
    const std::size_t E = lines.size();
    std::vector<Entry> examples(E);
    for (std::size_t e = 0; e < E; ++e)
        examples[e].line = lines[e];
    std::vector<std::int64_t> offsets;
    for (const Field& f : fields) {
        const Array a =
            npzMember(members, f.key, name, npyType(f.kind), f.ragged ? 1 : 1 + f.shape.size());
        if (f.kind == Kind::Text) {
            const std::vector<std::string> texts = textsOf(a);
            if (texts.size() != E) throw FormatError(a.name + ": not one entry per example");
            for (std::size_t e = 0; e < E; ++e)
                examples[e].values.push_back(textValue(texts[e]));
            continue;
        }
        const std::size_t item = itemSize(f.kind);
        if (f.ragged) {
            if (offsets.empty()) {
                offsets = int64Array(members, "examples/token_offsets", name);
                if (offsets.size() != E + 1 || offsets[0] != 0)
                    throw FormatError(name +
                                      ": examples/token_offsets is not E + 1 offsets from 0");
                for (std::size_t e = 0; e < E; ++e)
                    if (offsets[e + 1] < offsets[e])
                        throw FormatError(name + ": examples/token_offsets decrease");
            }
            if (a.header.shape[0] != std::uint64_t(offsets[E]))
                throw FormatError(a.name + ": " + std::to_string(a.header.shape[0]) +
                                  " elements, the offsets say " + std::to_string(offsets[E]));
            for (std::size_t e = 0; e < E; ++e) {
                Value v;
                v.bytes.assign(a.data.begin() + std::ptrdiff_t(std::size_t(offsets[e]) * item),
                               a.data.begin() + std::ptrdiff_t(std::size_t(offsets[e + 1]) * item));
                examples[e].values.push_back(std::move(v));
            }
            continue;
        }
        std::vector<std::uint64_t> want{E};
        want.insert(want.end(), f.shape.begin(), f.shape.end());
        if (a.header.shape != want)
            throw FormatError(a.name + ": not of the shape its analysis writes");
        const std::size_t per = std::size_t(elementCount(f.shape)) * item;
        for (std::size_t e = 0; e < E; ++e) {
            Value v;
            v.bytes.assign(a.data.begin() + std::ptrdiff_t(e * per),
                           a.data.begin() + std::ptrdiff_t((e + 1) * per));
            examples[e].values.push_back(std::move(v));
        }
    }
    std::vector<Entry> out;
    std::size_t e = 0, s = 0;
    while (e < E || s < skipped.size()) {  // both in dataset order: merged by line
        if (s == skipped.size() || (e < E && lines[e] < skipped[s])) {
            out.push_back(std::move(examples[e++]));
        } else {
            Entry x;
            x.line = skipped[s];
            x.skipped = true;
            x.reason = reasons[s++];
            out.push_back(std::move(x));
        }
    }
    return out;
}

void writeReproducible(const std::string& path, const attn::io::NpzMembers& members) {
    attn::io::ZipWriter zip(path);
    zip.set_date((1u << 5) | 1u, 0);  // 1980-01-01 00:00, the first date a zip can hold
    for (const auto& [key, payload] : members)
        zip.add(key + ".npy", payload);
    zip.finish();
}

}  // namespace cli::batch
