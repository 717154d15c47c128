// AttnScope core — writing a head census. GPL-3.0-or-later.
#include "attn/io/output/census_writer.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "../../files/io_util.hpp"

namespace attn::io {
namespace {

/// Nine significant digits: every float32 weight reads back exactly.
std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

}  // namespace

std::string census_csv(const Census& census) {
    std::string out = "layer_from_0,head_from_0,pattern";
    for (int p = 0; p < kPatternCount; ++p) {
        out += ',';
        out += pattern_column(static_cast<HeadPattern>(p));
    }
    out += '\n';
    for (const HeadCensus& h : census.entries) {
        out += std::to_string(h.layer);
        out += ',';
        out += std::to_string(h.head);
        out += ',';
        out += pattern_name(h.label);
        for (double s : h.scores) {
            out += ',';
            if (std::isfinite(s)) out += number(s);  // undefined: an empty field
        }
        out += '\n';
    }
    return out;
}

std::string census_json(const Census& census) {
    nlohmann::ordered_json doc = {{"format", "attnscope-census"},
                                  {"version", 1},
                                  {"layers", census.layers},
                                  {"heads", census.heads}};
    nlohmann::ordered_json patterns = nlohmann::ordered_json::array(),
                           entries = nlohmann::ordered_json::array();
    for (int p = 0; p < kPatternCount; ++p)
        patterns.push_back(pattern_name(static_cast<HeadPattern>(p)));
    for (const HeadCensus& h : census.entries) {
        nlohmann::ordered_json scores = nlohmann::ordered_json::object();
        for (int p = 0; p < kPatternCount; ++p) {
            const double s = h.scores[static_cast<std::size_t>(p)];
            scores[pattern_column(static_cast<HeadPattern>(p))] =
                std::isfinite(s) ? nlohmann::ordered_json(s) : nlohmann::ordered_json(nullptr);
        }
        entries.push_back({{"layer", h.layer},
                           {"head", h.head},
                           {"pattern", pattern_name(h.label)},
                           {"scores", scores}});
    }
    doc["patterns"] = patterns;
    doc["heads_census"] = entries;
    return doc.dump(1) + "\n";
}

void write_census(const std::string& path, const Census& census) {
    const std::string ext = detail::extension(path);
    std::string text;
    if (ext == ".csv")
        text = census_csv(census);
    else if (ext == ".json")
        text = census_json(census);
    else
        throw ArgumentError(path + ": a census is written as .csv or .json");
    detail::write_whole_file(path, detail::as_bytes(text));
}

}  // namespace attn::io
