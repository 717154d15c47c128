// AttnScope core — the playground's state as JSON. GPL-3.0-or-later.
#include "attn/io/json/playground_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "attn/attention/score.hpp"
#include "attn/util/error.hpp"

namespace attn::io {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail_playground(const std::string& name, const std::string& what) {
    throw FormatError(name + ": playground " + what);
}

json points(const std::vector<Eigen::Vector2d>& v) {
    json a = json::array();
    for (const auto& p : v)
        a.push_back({p.x(), p.y()});
    return a;
}

double number(const json& j, const std::string& name, const std::string& key) {
    if (!j.is_number()) fail_playground(name, "member '" + key + "' is not a number");
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail_playground(name, "member '" + key + "' is not finite");
    return v;
}

std::vector<Eigen::Vector2d> readPoints(const json& j, const std::string& name,
                                        const std::string& key) {
    if (!j.is_array())
        fail_playground(name, "member '" + key + "' is not an array of [x, y] points");
    std::vector<Eigen::Vector2d> out;
    for (const json& p : j) {
        if (!p.is_array() || p.size() != 2)
            fail_playground(name, "member '" + key + "' holds a non-point");
        out.emplace_back(number(p[0], name, key), number(p[1], name, key));
    }
    return out;
}

Eigen::Matrix2d readMatrix(const json& j, const std::string& name, const std::string& key) {
    if (!j.is_array() || j.size() != 4)
        fail_playground(name, "member '" + key + "' is not 4 numbers");
    // Each number is read before any is stored: a comma initializer that a throw leaves short
    // asserts in its destructor while the exception unwinds it.
    const double a = number(j[0], name, key), b = number(j[1], name, key),
                 c = number(j[2], name, key), d = number(j[3], name, key);
    Eigen::Matrix2d m;
    m << a, b, c, d;
    return m;
}

bool boolean(const json& j, const std::string& name, const std::string& key) {
    if (!j.is_boolean()) fail_playground(name, "member '" + key + "' is not true or false");
    return j.get<bool>();
}

int integer(const json& j, const std::string& name, const std::string& key) {
    const double v = number(j, name, key);
    if (v != std::floor(v) || std::abs(v) > 1e9)
        fail_playground(name, "member '" + key + "' is no integer");
    return static_cast<int>(v);
}

}  // namespace

std::string playground_to_json(const PlaygroundState& s) {
    json j = json::object();
    j["queries"] = points(s.queries);
    j["keys"] = points(s.keys);
    j["values"] = points(s.values);
    j["masked"] = json::array();
    for (bool m : s.masked)
        j["masked"].push_back(m);
    j["score"] = std::string(to_string(s.score));
    j["W"] = {s.W(0, 0), s.W(0, 1), s.W(1, 0), s.W(1, 1)};
    j["Wa"] = {s.Wa(0, 0), s.Wa(0, 1), s.Wa(1, 0), s.Wa(1, 1)};
    j["Ua"] = {s.Ua(0, 0), s.Ua(0, 1), s.Ua(1, 0), s.Ua(1, 1)};
    j["va"] = {s.va.x(), s.va.y()};
    j["sigma"] = s.sigma;
    j["scale"] = s.scale;
    j["as_if_dk"] = s.as_if_dk;
    j["temperature"] = s.temperature;
    j["hard_sample"] = s.hard_sample;
    j["seed"] = std::to_string(s.seed);
    j["selected_query"] = s.selected_query;
    j["overlay"] = s.overlay;
    j["snap_to_grid"] = s.snap_to_grid;
    j["grid_step"] = s.grid_step;
    j["sorted_bars"] = s.sorted_bars;
    return j.dump();
}

PlaygroundState parse_playground(std::string_view text, const PlaygroundState& base,
                                 const std::string& name) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) fail_playground(name, "state is not a JSON object");
    PlaygroundState s = base;
    const auto has = [&](const char* key) { return j.contains(key); };
    if (has("queries")) s.queries = readPoints(j["queries"], name, "queries");
    if (has("keys")) s.keys = readPoints(j["keys"], name, "keys");
    if (has("values")) s.values = readPoints(j["values"], name, "values");
    if (has("masked")) {
        if (!j["masked"].is_array()) fail_playground(name, "member 'masked' is not an array");
        s.masked.clear();
        for (const json& m : j["masked"])
            s.masked.push_back(boolean(m, name, "masked"));
    }
    if (has("score")) {
        if (!j["score"].is_string()) fail_playground(name, "member 'score' is not a string");
        try {
            s.score = score_kind_from_string(j["score"].get<std::string>());
        } catch (const Error& e) {
            fail_playground(name, std::string("member 'score': ") + e.what());
        }
    }
    if (has("W")) s.W = readMatrix(j["W"], name, "W");
    if (has("Wa")) s.Wa = readMatrix(j["Wa"], name, "Wa");
    if (has("Ua")) s.Ua = readMatrix(j["Ua"], name, "Ua");
    if (has("va")) {
        if (!j["va"].is_array() || j["va"].size() != 2)
            fail_playground(name, "member 'va' is not 2 numbers");
        s.va = Eigen::Vector2d(number(j["va"][0], name, "va"), number(j["va"][1], name, "va"));
    }
    if (has("sigma")) s.sigma = number(j["sigma"], name, "sigma");
    if (has("scale")) s.scale = boolean(j["scale"], name, "scale");
    if (has("as_if_dk")) s.as_if_dk = integer(j["as_if_dk"], name, "as_if_dk");
    if (has("temperature")) s.temperature = number(j["temperature"], name, "temperature");
    if (has("hard_sample")) s.hard_sample = boolean(j["hard_sample"], name, "hard_sample");
    if (has("seed")) {
        const json& seed = j["seed"];
        if (!seed.is_string()) fail_playground(name, "member 'seed' is not a decimal string");
        const std::string digits = seed.get<std::string>();
        if (digits.empty() || digits.size() > 20 ||
            digits.find_first_not_of("0123456789") != std::string::npos)
            fail_playground(name, "member 'seed' is not a decimal string");
        try {
            s.seed = std::stoull(digits);
        } catch (const std::exception&) {
            fail_playground(name, "member 'seed' is out of range");
        }
    }
    if (has("selected_query"))
        s.selected_query = integer(j["selected_query"], name, "selected_query");
    if (has("overlay")) s.overlay = boolean(j["overlay"], name, "overlay");
    if (has("snap_to_grid")) s.snap_to_grid = boolean(j["snap_to_grid"], name, "snap_to_grid");
    if (has("grid_step")) s.grid_step = number(j["grid_step"], name, "grid_step");
    if (has("sorted_bars")) s.sorted_bars = boolean(j["sorted_bars"], name, "sorted_bars");
    return s;
}

}  // namespace attn::io
