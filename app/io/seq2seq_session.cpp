// AttnScope — an encoder–decoder's run in a session. GPL-3.0-or-later.
#include "io/seq2seq_session.hpp"

#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <string>

#include "attn/models/seq2seq_scaling.hpp"
#include "attn/scene/seq2seq_scene.hpp"
#include "attn/scene/spec_edit.hpp"
#include "attn/util/error.hpp"

namespace fileio {

attn::io::Seq2SeqSession seq2seqSession(const Seq2SeqShown::Run& run, const attn::SceneSpec& spec) {
    attn::io::Seq2SeqSession s;
    s.component =
        attn::shown_component(*run.data, spec.component).value_or(attn::model::Component::Cross);
    s.target = run.input.target;
    s.target_ids = run.input.targetIds;
    s.controls = run.input.options.controls;
    return s;
}

ReopenedSeq2Seq reopenSeq2Seq(const std::string& sessionPath, const attn::io::Session& session,
                              attn::SceneSpec& spec) {
    const attn::io::Seq2SeqSession& saved = *session.seq2seq;
    const std::string dir = attn::io::resolved_model_path(sessionPath, session);
    const std::string named =
        dir == session.model_path ? dir : dir + " (model.path \"" + session.model_path + "\")";
    const auto refuse = [&](const std::string& why) {
        throw attn::FormatError(sessionPath + ": the encoder–decoder it runs, " + named + ", " +
                                why);
    };
    if (!QFileInfo::exists(QFile::decodeName(QByteArray::fromStdString(dir))))
        refuse(
            "does not exist (moved or deleted?); open the model again with Model ▸ Open "
            "Model… and save the session");
    if (!isSeq2SeqFolder(dir))
        refuse("is no encoder–decoder (Marian, T5) now: its config.json names another model");
    ReopenedSeq2Seq out;
    out.folder = std::make_shared<const attn::model::Seq2SeqFolder>(attn::model::open_seq2seq(dir));
    out.input.source = spec.text;
    out.input.target = saved.target;
    out.input.targetIds = saved.target_ids;
    out.input.options.controls = saved.controls;
    out.input.translate = saved.target.empty() && saved.target_ids.empty();
    // The heads the session names, checked before the run names them less plainly.
    try {
        attn::model::check_heads(out.folder->model->info(), saved.controls);
    } catch (const attn::ArgumentError& e) {
        refuse(std::string("has no such head: ") + e.what());
    }
    out.outcome = runSeq2Seq(*out.folder, out.input);
    const attn::Index layer = spec.layer;
    spec = seq2seqSpec(attn::without_run_state(spec), out.outcome);
    spec.text = out.input.source;
    // The run's scaling, which the controls show (greyed: its weights cannot be rescaled).
    spec.scale = attn::model::scales_scores(out.folder->model->info(), out.input.options.controls);
    const attn::AttentionData& data = *out.outcome.data;
    const attn::Index c = attn::component_index(data, saved.component);
    const attn::Index layers = c < 0 ? 0 : data.components[std::size_t(c)].layers;
    if (layer >= layers)
        refuse("has " + std::to_string(layers) + " layer(s) of " +
               attn::model::component_name(saved.component) + " attention, but model.layer is " +
               std::to_string(layer));
    spec.component = c;
    spec.layer = layer;
    return out;
}

}  // namespace fileio
