// AttnScope core — reading session files. GPL-3.0-or-later.
#include <algorithm>
#include <limits>
#include <memory>

#include "../../files/io_util.hpp"
#include "../json/json_util.hpp"
#include "attn/attention/mask.hpp"
#include "attn/attention/score.hpp"
#include "attn/io/session/session.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"
#include "session_json.hpp"
#include "session_model.hpp"

namespace attn::io {

namespace {

using detail::JsonReader;
using detail::ojson;

constexpr Index kMaxDim = 1 << 20;

/// Reads an optional member: absent (or null where allowed) keeps the default.
const ojson* opt(const ojson& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

template <typename F>
auto parse_enum(const JsonReader& r, const ojson& j, const std::string& path, F from_string) {
    const std::string s = r.string(j, path);
    try {
        return from_string(s);
    } catch (const Error&) {
        r.fail(path, "is \"" + s + "\", not a known value");
    }
}

MaskSpec read_mask(const JsonReader& r, const ojson& j, const std::string& path) {
    MaskSpec m;
    r.member(j, "kind", path);
    m.kind = parse_enum(r, j["kind"], path + ".kind", mask_kind_from_string);
    if (auto* w = opt(j, "window")) m.window = r.integer(*w, path + ".window", 0, kMaxDim);
    if (auto* g = opt(j, "global")) {
        if (!g->is_array())
            r.fail(path + ".global", "is " + detail::json_kind(*g) + ", expected a list");
        for (std::size_t i = 0; i < g->size(); ++i)
            m.global.push_back(
                r.integer((*g)[i], path + ".global[" + std::to_string(i) + "]", 0, kMaxDim));
    }
    if (auto* v = opt(j, "key_valid")) {
        if (!v->is_array())
            r.fail(path + ".key_valid", "is " + detail::json_kind(*v) + ", expected a list");
        for (std::size_t i = 0; i < v->size(); ++i)
            m.key_valid.push_back(
                r.boolean((*v)[i], path + ".key_valid[" + std::to_string(i) + "]"));
    }
    if (auto* c = opt(j, "custom")) {
        const std::string cp = path + ".custom";
        if (!c->is_array()) r.fail(cp, "is " + detail::json_kind(*c) + ", expected a list of rows");
        const std::size_t cols = c->empty() ? 0 : ((*c)[0].is_array() ? (*c)[0].size() : 0);
        for (std::size_t i = 0; i < c->size(); ++i) {  // all rows checked before allocating
            const std::string rp = cp + "[" + std::to_string(i) + "]";
            const ojson& row = (*c)[i];
            if (!row.is_array()) r.fail(rp, "is " + detail::json_kind(row) + ", expected a list");
            if (row.size() != cols)
                r.fail(rp, "has " + std::to_string(row.size()) + " entries, expected " +
                               std::to_string(cols));
        }
        m.custom.resize(static_cast<Index>(c->size()), static_cast<Index>(cols));
        for (std::size_t i = 0; i < c->size(); ++i) {
            const std::string rp = cp + "[" + std::to_string(i) + "]";
            const ojson& row = (*c)[i];
            for (std::size_t k = 0; k < cols; ++k)
                m.custom(static_cast<Index>(i), static_cast<Index>(k)) =
                    r.boolean(row[k], rp + "[" + std::to_string(k) + "]");
        }
    }
    return m;
}

MultiHeadWeights read_weights(const JsonReader& r, const ojson& j, const std::string& path) {
    MultiHeadWeights w;
    w.Wq = r.matrix(r.member(j, "W_Q", path), path + ".W_Q");
    w.Wk = r.matrix(r.member(j, "W_K", path), path + ".W_K");
    w.Wv = r.matrix(r.member(j, "W_V", path), path + ".W_V");
    w.Wo = r.matrix(r.member(j, "W_O", path), path + ".W_O");
    if (auto* hs = opt(j, "head_scores")) {
        const std::string hp = path + ".head_scores";
        if (!hs->is_array()) r.fail(hp, "is " + detail::json_kind(*hs) + ", expected a list");
        for (std::size_t i = 0; i < hs->size(); ++i) {
            const std::string p = hp + "[" + std::to_string(i) + "]";
            const ojson& h = (*hs)[i];
            ScoreParams s;
            s.kind = parse_enum(r, r.member(h, "kind", p), p + ".kind", score_kind_from_string);
            if (auto* x = opt(h, "W")) s.W = r.matrix(*x, p + ".W");
            if (auto* x = opt(h, "W_a")) s.Wa = r.matrix(*x, p + ".W_a");
            if (auto* x = opt(h, "U_a")) s.Ua = r.matrix(*x, p + ".U_a");
            if (auto* x = opt(h, "v_a")) s.va = r.vector(*x, p + ".v_a");
            if (auto* x = opt(h, "sigma")) s.sigma = r.number(*x, p + ".sigma");
            w.head_scores.push_back(std::move(s));
        }
    }
    return w;
}

SceneSpec read_scene(const JsonReader& r, const ojson& j) {
    const std::string p = "scene";
    if (!j.is_object()) r.fail(p, "is " + detail::json_kind(j) + ", expected an object");
    SceneSpec s;
    if (auto* x = opt(j, "text")) s.text = r.string(*x, p + ".text");
    if (auto* x = opt(j, "tokens")) {
        if (!x->is_array())
            r.fail(p + ".tokens", "is " + detail::json_kind(*x) + ", expected a list");
        for (std::size_t i = 0; i < x->size(); ++i)
            s.tokens.push_back(r.string((*x)[i], p + ".tokens[" + std::to_string(i) + "]"));
    }
    if (auto* x = opt(j, "cross_text")) s.cross_text = r.string(*x, p + ".cross_text");
    if (auto* x = opt(j, "d_model")) s.d_model = r.integer(*x, p + ".d_model", 1, kMaxDim);
    if (auto* x = opt(j, "heads")) s.heads = r.integer(*x, p + ".heads", 1, kMaxDim);
    if (auto* x = opt(j, "kv_heads")) s.kv_heads = r.integer(*x, p + ".kv_heads", 0, kMaxDim);
    if (auto* x = opt(j, "score"))
        s.score = parse_enum(r, *x, p + ".score", score_kind_from_string);
    if (auto* x = opt(j, "sigma")) s.sigma = r.number(*x, p + ".sigma");
    if (auto* x = opt(j, "scale")) s.scale = r.boolean(*x, p + ".scale");
    if (auto* x = opt(j, "temperature")) s.temperature = r.number(*x, p + ".temperature");
    if (auto* x = opt(j, "mask")) s.mask = read_mask(r, *x, p + ".mask");
    if (auto* x = opt(j, "positional"))
        s.positional = parse_enum(r, *x, p + ".positional", positional_kind_from_string);
    if (auto* x = opt(j, "seed")) s.seed = r.uint64(*x, p + ".seed");
    if (auto* x = opt(j, "merge_words")) s.merge_words = r.boolean(*x, p + ".merge_words");
    if (auto* x = opt(j, "embeddings"); x && !x->is_null())
        s.embeddings = std::make_shared<const Matrix>(r.matrix(*x, p + ".embeddings"));
    if (auto* x = opt(j, "weights"); x && !x->is_null())
        s.weights = std::make_shared<const MultiHeadWeights>(read_weights(r, *x, p + ".weights"));
    return s;
}

std::vector<std::string> read_strings(const JsonReader& r, const ojson& j,
                                      const std::string& path) {
    if (!j.is_array()) r.fail(path, "is " + detail::json_kind(j) + ", expected a list");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i)
        out.push_back(r.string(j[i], path + "[" + std::to_string(i) + "]"));
    return out;
}

/// Attention written into the session itself (File ▸ Embed Loaded Data).
std::shared_ptr<const AttentionData> read_embedded(const JsonReader& r, const ojson& j,
                                                   const std::string& p) {
    auto d = std::make_shared<AttentionData>();
    d->source = r.string(r.member(j, "source", p), p + ".source");
    const ojson& comps = r.member(j, "components", p);
    if (!comps.is_array() || comps.empty())
        r.fail(p + ".components", "is " + detail::json_kind(comps) + ", expected a non-empty list");
    for (std::size_t i = 0; i < comps.size(); ++i) {
        const std::string cp = p + ".components[" + std::to_string(i) + "]";
        const ojson& cj = comps[i];
        AttentionComponent c;
        c.name = r.string(r.member(cj, "name", cp), cp + ".name");
        c.q_tokens = read_strings(r, r.member(cj, "q_tokens", cp), cp + ".q_tokens");
        c.k_tokens = read_strings(r, r.member(cj, "k_tokens", cp), cp + ".k_tokens");
        c.layers = r.integer(r.member(cj, "layers", cp), cp + ".layers", 1, kMaxDim);
        c.heads = r.integer(r.member(cj, "heads", cp), cp + ".heads", 1, kMaxDim);
        c.are_scores = r.boolean(r.member(cj, "are_scores", cp), cp + ".are_scores");
        c.d_k = r.number(r.member(cj, "d_k", cp), cp + ".d_k");
        if (c.q_tokens.empty() || c.k_tokens.empty())
            r.fail(cp, "has no tokens (q_tokens and k_tokens must not be empty)");
        const ojson& mats = r.member(cj, "matrices", cp);
        const std::size_t count = static_cast<std::size_t>(c.layers * c.heads);
        if (!mats.is_array() || mats.size() != count)
            r.fail(cp + ".matrices",
                   "holds " +
                       (mats.is_array() ? std::to_string(mats.size()) : detail::json_kind(mats)) +
                       ", expected layers × heads = " + std::to_string(count) + " matrices");
        for (std::size_t m = 0; m < count; ++m) {
            const std::string mp = cp + ".matrices[" + std::to_string(m) + "]";
            Matrix mat = r.matrix(mats[m], mp);
            if (mat.rows() != Index(c.q_tokens.size()) || mat.cols() != Index(c.k_tokens.size()))
                r.fail(mp, "is " + std::to_string(mat.rows()) + "×" + std::to_string(mat.cols()) +
                               ", expected " + std::to_string(c.q_tokens.size()) + "×" +
                               std::to_string(c.k_tokens.size()) + " (query × key tokens)");
            c.mats.push_back(std::move(mat));
        }
        d->components.push_back(std::move(c));
    }
    if (auto* x = opt(j, "default_component"))
        d->default_component =
            r.integer(*x, p + ".default_component", 0, Index(d->components.size()) - 1);
    return d;
}

/// A file or folder path of the session: a NUL byte would cut it short when opened, so the
/// session would silently name another file.
std::string read_path(const JsonReader& r, const ojson& j, const std::string& path) {
    std::string s = r.string(j, path);
    if (const auto nul = s.find('\0'); nul != std::string::npos)
        r.fail(path, "holds a NUL character at position " + std::to_string(nul) +
                         "; a file path cannot contain one");
    return s;
}

/// Bytes allocated per byte of session text while it is parsed (see parse_session).
constexpr double kSessionExpansion = 10;

}  // namespace

Session parse_session(std::string_view text, const std::string& name) {
    // The parsed tree and the embedded matrices made of it: a JSON value takes 16 bytes or
    // more for the few characters of a number, so about ten times the text is allocated.
    require_memory(double(text.size()) * kSessionExpansion,
                   name + " (" + detail::human_bytes(text.size()) +
                       " of session JSON) parsed with its embedded data",
                   "embed less data, or use a larger --memory-budget");
    const ojson root = detail::parse_ordered_json(text, name);
    JsonReader r(name);
    if (!root.is_object())
        detail::fail(name, "the top level is " + detail::json_kind(root) + ", expected an object");
    const auto fmt = root.find("format");
    if (fmt == root.end() || !fmt->is_string() || fmt->get<std::string>() != kSessionFormat)
        detail::fail(name, "not an AttnScope session (\"format\" is not \"attnscope-session\")");
    const Index version = r.integer(r.member(root, "version", ""), "version", 1, 1 << 30);
    if (version > kSessionVersion)
        detail::fail(name, "session version " + std::to_string(version) +
                               " is newer than this AttnScope reads (up to version " +
                               std::to_string(kSessionVersion) + "); please update AttnScope");
    Session session;
    session.spec = read_scene(r, r.member(root, "scene", ""));
    if (auto* d = opt(root, "data"); d && !d->is_null()) {
        session.data_path = read_path(r, r.member(*d, "path", "data"), "data.path");
        if (auto* x = opt(*d, "absolute_path"))
            session.data_absolute_path = read_path(r, *x, "data.absolute_path");
        if (auto* x = opt(*d, "embedded"); x && !x->is_null()) {
            session.spec.data = read_embedded(r, *x, "data.embedded");
            session.embed_data = true;
        }
        if (auto* x = opt(*d, "component"))
            session.spec.component = r.integer(*x, "data.component", 0, kMaxDim);
        if (auto* x = opt(*d, "layer"))
            session.spec.layer = r.integer(*x, "data.layer", 0, kMaxDim);
        if (const auto& e = session.spec.data) {  // embedded: its own sizes bound the choice
            const auto& comps = e->components;
            if (std::size_t(session.spec.component) >= comps.size())
                r.fail("data.component", "is " + std::to_string(session.spec.component) +
                                             ", but the embedded data has " +
                                             std::to_string(comps.size()) + " component(s)");
            const Index layers = comps[std::size_t(session.spec.component)].layers;
            if (session.spec.layer >= layers)
                r.fail("data.layer", "is " + std::to_string(session.spec.layer) +
                                         ", but the embedded component has " +
                                         std::to_string(layers) + " layer(s)");
        }
        if (auto* x = opt(*d, "d_k"); x && !x->is_null())
            session.spec.data_dk = r.number(*x, "data.d_k");
    }
    if (auto* m = opt(root, "model"); m && !m->is_null()) {
        session.model_path = read_path(r, r.member(*m, "path", "model"), "model.path");
        detail::read_model(r, *m, session);
    }
    if (auto* v = opt(root, "views"); v && !v->is_null()) {
        if (!v->is_object())
            r.fail("views", "is " + detail::json_kind(*v) + ", expected an object");
        session.views = v->dump();
    }
    return session;
}

bool looks_like_session(std::string_view text) {
    // Cheap test on the opening bytes: the writer always puts "format" first.
    const std::string_view head = text.substr(0, 256);
    return head.find("\"attnscope-session\"") != std::string_view::npos;
}

Session load_session(const std::string& path) {
    const auto bytes = detail::read_whole_file(path);
    return parse_session(detail::as_chars(bytes), detail::base_name(path));
}

}  // namespace attn::io
