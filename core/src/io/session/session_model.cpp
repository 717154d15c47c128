// AttnScope core — a session's "model" key: the folder the scene runs and the run's state. A
// decoder-only model's sites are [layer, head] (its one stack, model::kSingleStack); an
// encoder–decoder's name their component, ["cross", layer, head]. GPL-3.0-or-later.
#include "session_model.hpp"

#include <algorithm>
#include <limits>

#include "../json/json_util.hpp"
#include "attn/models/model.hpp"
#include "attn/models/model_identity.hpp"
#include "attn/util/error.hpp"

namespace attn::io::detail {

namespace {

constexpr Index kMaxSize = 1 << 20;

const ojson* member_or_null(const ojson& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

/// What the session's model folder holds: read from the folder the scene runs, else as the
/// session was read. A folder that cannot be read any more is saved without one (the session
/// itself matters more; reopening it then checks nothing).
std::optional<model::ModelIdentity> identity_of(const Session& session) {
    if (!session.spec.model || !session.spec.model->model) return session.model_identity;
    try {
        return model::model_identity(*session.spec.model);
    } catch (const Error&) {
        return std::nullopt;
    }
}

ojson identity_json(const model::ModelIdentity& id) {
    ojson j;
    j["family"] = id.family;
    j["layers"] = id.layers;
    j["heads"] = id.heads;
    j["d_model"] = id.d_model;
    j["vocab"] = id.vocab;
    j["hash"] = id.hash;
    return j;
}

/// S's entry: [layer, head], with the component's name first when NAMED.
ojson site_json(const model::Site& s, bool named) {
    ojson j = ojson::array();
    if (named) j.push_back(model::component_name(s.component));
    j.push_back(s.layer);
    j.push_back(s.head);
    return j;
}

ojson interventions_json(const std::vector<model::Site>& ablated, model::AblationMode mode,
                         const std::vector<model::Knockout>& knockouts, bool named) {
    ojson iv;
    iv["ablated"] = list_json(ablated, [&](const model::Site& h) { return site_json(h, named); });
    iv["ablation"] = mode == model::AblationMode::Mean ? "mean" : "zero";
    iv["knockouts"] = list_json(knockouts, [&](const model::Knockout& k) {
        ojson e = site_json(k.site, named);
        e.push_back(k.query);
        e.push_back(k.key);
        return e;
    });
    return iv;
}

/// A site with EXTRA integers after it (a knockout's query, at least −1, and key).
struct SiteTuple {
    model::Site site;
    std::vector<int> extra;
};

/// The list at PATH of [layer, head, EXTRA…] (one stack) or, when NAMED, ["part", layer, head,
/// EXTRA…].
std::vector<SiteTuple> site_tuples(const JsonReader& r, const ojson& j, const std::string& path,
                                   std::size_t extra, bool named) {
    if (!j.is_array()) r.fail(path, "is not a list");
    const std::size_t first = named ? 1 : 0, n = first + 2 + extra;
    std::vector<SiteTuple> out;
    for (const auto& t : j) {
        if (!named && t.is_array() && !t.empty() && t[0].is_string())
            r.fail(path, "names the component " + t[0].dump() +
                             ": a model of one stack's sites are [layer, head] (an "
                             "encoder–decoder's session has model.component)");
        if (!t.is_array() || t.size() != n || (named && !t[0].is_string()))
            r.fail(path, "holds " + json_kind(t) + ", expected lists of " +
                             (named ? "a component (\"encoder\", \"decoder\" or \"cross\") and " +
                                          std::to_string(n - 1)
                                    : std::to_string(n)) +
                             " integers");
        SiteTuple s;
        if (named) {
            const std::string name = t[0].get<std::string>();
            const auto c = model::component_named(name);
            if (!c)
                r.fail(path, "names the component \"" + name +
                                 "\", not \"encoder\", \"decoder\" or \"cross\"");
            s.site.component = *c;
        }
        s.site.layer = int(r.integer(t[first], path, 0, kMaxSize));
        s.site.head = int(r.integer(t[first + 1], path, 0, kMaxSize));
        for (std::size_t i = 0; i < extra; ++i)
            s.extra.push_back(int(r.integer(t[first + 2 + i], path, i == 0 ? -1 : 0, kMaxSize)));
        out.push_back(std::move(s));
    }
    return out;
}

/// model.interventions: {"ablated": [site…], "ablation": "zero"|"mean", "knockouts": [[site…,
/// q, k]…]} (q = −1: every query), each site as site_tuples reads it.
void read_interventions(const JsonReader& r, const ojson& j, bool named,
                        std::vector<model::Site>& ablated, model::AblationMode& mode,
                        std::vector<model::Knockout>& knockouts) {
    if (!j.is_object())
        r.fail("model.interventions", "is " + json_kind(j) + ", expected an object");
    if (auto* x = member_or_null(j, "ablated"))
        for (const SiteTuple& t : site_tuples(r, *x, "model.interventions.ablated", 0, named))
            ablated.push_back(t.site);
    if (auto* x = member_or_null(j, "ablation")) {
        const std::string m = x->is_string() ? x->get<std::string>() : std::string();
        if (m != "zero" && m != "mean")
            r.fail("model.interventions.ablation", "is not \"zero\" or \"mean\"");
        mode = m == "mean" ? model::AblationMode::Mean : model::AblationMode::Zero;
    }
    if (auto* x = member_or_null(j, "knockouts"))
        for (const SiteTuple& t : site_tuples(r, *x, "model.interventions.knockouts", 2, named))
            knockouts.push_back({t.site, t.extra[0], t.extra[1]});
}

/// model.identity: what the folder held when the session was saved.
model::ModelIdentity read_identity(const JsonReader& r, const ojson& j) {
    const std::string p = "model.identity";
    if (!j.is_object()) r.fail(p, "is " + json_kind(j) + ", expected an object");
    model::ModelIdentity id;
    id.family = r.string(r.member(j, "family", p), p + ".family");
    id.layers = int(r.integer(r.member(j, "layers", p), p + ".layers", 0, kMaxSize));
    id.heads = int(r.integer(r.member(j, "heads", p), p + ".heads", 0, kMaxSize));
    id.d_model = int(r.integer(r.member(j, "d_model", p), p + ".d_model", 0, kMaxSize));
    id.vocab = int(r.integer(r.member(j, "vocab", p), p + ".vocab", 0,
                             std::numeric_limits<std::int32_t>::max()));
    id.hash = r.string(r.member(j, "hash", p), p + ".hash");
    return id;
}

/// A list of token ids at PATH.
std::vector<std::int32_t> read_ids(const JsonReader& r, const ojson& j, const std::string& path) {
    if (!j.is_array()) r.fail(path, "is not a list of token ids");
    std::vector<std::int32_t> ids;
    for (const auto& id : j)
        ids.push_back(
            std::int32_t(r.integer(id, path, 0, std::numeric_limits<std::int32_t>::max())));
    return ids;
}

/// Sorted, each once: as model::Interventions keeps them.
template <class T>
void sort_unique(std::vector<T>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

ojson model_json(const Session& session) {
    const SceneSpec& s = session.spec;
    const std::string path = !session.model_path.empty() ? session.model_path
                             : s.model                   ? s.model->dir
                                                         : std::string();
    if (path.empty()) return ojson();
    ojson m;
    m["path"] = path;
    if (const auto& run = session.seq2seq) {
        // An encoder–decoder: the component shown, both sentences and the run's controls.
        const model::Seq2SeqControls& c = run->controls;
        m["component"] = model::component_name(run->component);
        m["layer"] = s.layer;
        m["target"] = run->target;
        if (!run->target_ids.empty()) m["target_ids"] = run->target_ids;
        if (c.scale) m["scale"] = *c.scale;
        if (!c.ablate.empty() || !c.knockouts.empty())
            m["interventions"] = interventions_json(c.ablate, c.ablation, c.knockouts, true);
        return m;
    }
    if (const auto id = identity_of(session)) m["identity"] = identity_json(*id);
    m["layer"] = s.layer;
    m["layers"] = s.model_layers;
    // Written only when off: sessions of models with rotary positions on stay as they were.
    if (!s.model_rotary) m["rotary"] = false;
    if (!s.model_softcap) m["softcap"] = false;
    // A generation's ids, only when the scene has them: other sessions stay byte-identical.
    if (!s.model_ids.empty()) m["ids"] = s.model_ids;
    // Only when something is ablated or knocked out: older sessions stay byte-identical.
    if (!s.interventions.empty())
        m["interventions"] = interventions_json(s.interventions.ablated, s.interventions.ablation,
                                                s.interventions.knockouts, false);
    return m;
}

void read_model(const JsonReader& r, const ojson& m, Session& session) {
    SceneSpec& spec = session.spec;
    if (auto* x = member_or_null(m, "identity"); x && !x->is_null())
        session.model_identity = read_identity(r, *x);
    if (auto* x = member_or_null(m, "layer"))
        spec.layer = r.integer(*x, "model.layer", 0, kMaxSize);
    // A component is written only for an encoder–decoder's run.
    if (auto* x = member_or_null(m, "component")) {
        Seq2SeqSession run;
        const std::string name = r.string(*x, "model.component");
        const auto c = model::component_named(name);
        if (!c)
            r.fail("model.component",
                   "is \"" + name + "\", not \"encoder\", \"decoder\" or \"cross\"");
        run.component = *c;
        if (auto* t = member_or_null(m, "target")) run.target = r.string(*t, "model.target");
        if (auto* t = member_or_null(m, "target_ids"))
            run.target_ids = read_ids(r, *t, "model.target_ids");
        if (auto* t = member_or_null(m, "scale")) run.controls.scale = r.boolean(*t, "model.scale");
        if (auto* t = member_or_null(m, "interventions"); t && !t->is_null())
            read_interventions(r, *t, true, run.controls.ablate, run.controls.ablation,
                               run.controls.knockouts);
        session.seq2seq = std::move(run);
        return;
    }
    if (auto* x = member_or_null(m, "layers")) {
        if (!x->is_array()) r.fail("model.layers", "is not a list of layer indices");
        for (const auto& l : *x)
            spec.model_layers.push_back(int(r.integer(l, "model.layers", 0, kMaxSize)));
    }
    if (auto* x = member_or_null(m, "rotary")) spec.model_rotary = r.boolean(*x, "model.rotary");
    if (auto* x = member_or_null(m, "softcap")) spec.model_softcap = r.boolean(*x, "model.softcap");
    if (auto* x = member_or_null(m, "ids")) spec.model_ids = read_ids(r, *x, "model.ids");
    if (auto* x = member_or_null(m, "interventions"); x && !x->is_null()) {
        model::Interventions& iv = spec.interventions;
        read_interventions(r, *x, false, iv.ablated, iv.ablation, iv.knockouts);
        sort_unique(iv.ablated);
        sort_unique(iv.knockouts);
    }
}

}  // namespace attn::io::detail
