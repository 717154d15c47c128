// AttnScope core — writing session files. GPL-3.0-or-later.
#include "attn/io/session/session.hpp"

#include "../../files/io_util.hpp"
#include "../json/json_util.hpp"
#include "attn/attention/mask.hpp"
#include "attn/attention/score.hpp"
#include "attn/util/error.hpp"
#include "session_json.hpp"
#include "session_model.hpp"

namespace attn::io {

namespace {

using detail::float_value;
using detail::list_json;
using detail::matrix_json;
using detail::ojson;

ojson mask_json(const MaskSpec& m) {
    ojson j;
    j["kind"] = std::string(to_string(m.kind));
    j["window"] = m.window;
    j["global"] = m.global;
    j["key_valid"] = list_json(m.key_valid, [](bool b) { return b; });
    ojson custom = ojson::array();
    for (Index i = 0; i < m.custom.rows(); ++i) {
        ojson row = ojson::array();
        for (Index k = 0; k < m.custom.cols(); ++k)
            row.push_back(static_cast<bool>(m.custom(i, k)));
        custom.push_back(std::move(row));
    }
    j["custom"] = std::move(custom);
    return j;
}

ojson weights_json(const MultiHeadWeights& w) {
    ojson j;
    j["W_Q"] = matrix_json(w.Wq);
    j["W_K"] = matrix_json(w.Wk);
    j["W_V"] = matrix_json(w.Wv);
    j["W_O"] = matrix_json(w.Wo);
    j["head_scores"] = list_json(w.head_scores, [](const ScoreParams& p) {
        ojson h;
        h["kind"] = std::string(to_string(p.kind));
        h["W"] = matrix_json(p.W);
        h["W_a"] = matrix_json(p.Wa);
        h["U_a"] = matrix_json(p.Ua);
        h["v_a"] = detail::vector_json(p.va);
        h["sigma"] = float_value(p.sigma);
        return h;
    });
    return j;
}

/// Pretty-prints with two-space indents, but keeps lists of scalars (a matrix row, a token
/// list) on one line so a matrix reads as one row per line.
void print(const ojson& j, std::string& out, int indent) {
    const auto pad = [&](int n) { out.append(static_cast<std::size_t>(2 * n), ' '); };
    if (j.is_object() && !j.empty()) {
        out += "{\n";
        std::size_t k = 0;
        for (const auto& [key, value] : j.items()) {
            pad(indent + 1);
            out += ojson(key).dump() + ": ";
            print(value, out, indent + 1);
            out += ++k < j.size() ? ",\n" : "\n";
        }
        pad(indent);
        out += "}";
    } else if (j.is_array() && !j.empty()) {
        bool flat = true;
        for (const auto& e : j)
            flat = flat && !e.is_structured();
        if (flat) {
            out += "[";
            for (std::size_t i = 0; i < j.size(); ++i)
                out += (i ? ", " : "") + j[i].dump();
            out += "]";
            return;
        }
        out += "[\n";
        for (std::size_t i = 0; i < j.size(); ++i) {
            pad(indent + 1);
            print(j[i], out, indent + 1);
            out += i + 1 < j.size() ? ",\n" : "\n";
        }
        pad(indent);
        out += "]";
    } else {
        out += j.dump();
    }
}

ojson embedded_json(const AttentionData& d) {
    ojson j;
    j["source"] = d.source;
    j["default_component"] = d.default_component;
    j["components"] = list_json(d.components, [&](const AttentionComponent& c) {
        ojson cj;
        cj["name"] = c.name;
        cj["q_tokens"] = c.q_tokens;
        cj["k_tokens"] = c.k_tokens;
        cj["layers"] = c.layers;
        cj["heads"] = c.heads;
        cj["are_scores"] = c.are_scores;
        cj["d_k"] = float_value(c.d_k);
        if (c.rows)
            throw ArgumentError("\"" + d.source +
                                "\" is read from its file row by row (too large to copy into a "
                                "session); save the session without its data or open a smaller "
                                "file.");
        cj["matrices"] = list_json(c.mats, [](const Matrix& m) { return matrix_json(m); });
        return cj;
    });
    return j;
}

}  // namespace

std::string session_to_json(const Session& session) {
    const SceneSpec& s = session.spec;
    ojson root;
    root["format"] = kSessionFormat;
    root["version"] = kSessionVersion;
    ojson scene;
    scene["text"] = s.text;
    scene["tokens"] = s.tokens;
    scene["cross_text"] = s.cross_text;
    scene["d_model"] = s.d_model;
    scene["heads"] = s.heads;
    scene["kv_heads"] = s.kv_heads;
    scene["score"] = std::string(to_string(s.score));
    scene["sigma"] = float_value(s.sigma);
    scene["scale"] = s.scale;
    scene["temperature"] = float_value(s.temperature);
    scene["mask"] = mask_json(s.mask);
    scene["positional"] = std::string(to_string(s.positional));
    scene["seed"] = s.seed;
    // Only when on: sessions written before the merge existed stay byte-identical.
    if (s.merge_words) scene["merge_words"] = true;
    scene["embeddings"] = s.embeddings ? matrix_json(*s.embeddings) : ojson();
    scene["weights"] = s.weights ? weights_json(*s.weights) : ojson();
    root["scene"] = std::move(scene);

    const std::string path = !session.data_path.empty()      ? session.data_path
                             : s.data && !session.embed_data ? s.data->source
                                                             : std::string();
    const bool embed = session.embed_data && s.data;
    if (path.empty() && !embed) {
        root["data"] = ojson();
    } else {
        ojson data;
        data["path"] = path;
        if (!session.data_absolute_path.empty()) data["absolute_path"] = session.data_absolute_path;
        data["component"] = s.component;
        data["layer"] = s.layer;
        data["d_k"] = s.data_dk ? ojson(float_value(*s.data_dk)) : ojson();
        if (embed) data["embedded"] = embedded_json(*s.data);
        root["data"] = std::move(data);
    }
    // Only with a model: sessions without one stay byte-identical.
    if (ojson m = detail::model_json(session); !m.is_null()) root["model"] = std::move(m);
    ojson views;
    try {
        views = ojson::parse(session.views.empty() ? std::string("{}") : session.views);
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(std::string("session: the views state is not valid JSON: ") + e.what());
    }
    if (!views.is_object()) throw FormatError("session: the views state is not a JSON object");
    root["views"] = std::move(views);
    std::string text;
    print(root, text, 0);
    text += '\n';
    return text;
}

void save_session(const std::string& path, const Session& session) {
    const std::string text = session_to_json(session);
    detail::write_whole_file(path, detail::as_bytes(text));
}

}  // namespace attn::io
