// AttnScope — one encoder–decoder run as the window shows it. GPL-3.0-or-later.
#include "model/seq2seq_run.hpp"

#include <QRegularExpression>
#include <QStringList>
#include <algorithm>

#include "attn/scene/seq2seq_scene.hpp"
#include "attn/util/error.hpp"

bool isSeq2SeqFolder(const std::string& dir) {
    try {
        return attn::model::is_seq2seq_folder(dir);
    } catch (const std::exception&) {
        return false;
    }
}

std::vector<std::int32_t> seq2seqDecoderIds(const attn::model::Seq2SeqFolder& folder,
                                            const Seq2SeqInput& input) {
    if (!input.targetIds.empty()) {
        std::vector<std::int32_t> ids = {folder.model->info().decoder_start};
        ids.insert(ids.end(), input.targetIds.begin(), input.targetIds.end());
        return ids;
    }
    if (input.target.empty())
        throw attn::ArgumentError("the target is empty: type a translation, or Translate");
    return attn::decoder_inputs(folder, input.target);
}

Seq2SeqOutcome runSeq2Seq(const attn::model::Seq2SeqFolder& folder, const Seq2SeqInput& request) {
    const attn::model::Seq2SeqModel& model = *folder.model;
    Seq2SeqOutcome out;
    out.sourceIds = folder.source->encode(request.source);
    if (request.translate) {
        const attn::gen::Translation t =
            attn::gen::translate(model, out.sourceIds, request.options);
        out.translated = true;
        out.finished = t.finished;
        out.output = t.output;
        std::vector<std::int32_t> words;
        for (const std::int32_t id : t.output)
            if (!folder.target->is_special(id)) words.push_back(id);
        out.text = folder.target->decode(words);
        out.decoderIds = {model.info().decoder_start};
        out.decoderIds.insert(out.decoderIds.end(), t.output.begin(), t.output.end());
    } else {
        out.decoderIds = seq2seqDecoderIds(folder, request);
    }
    const attn::model::Seq2SeqRun run =
        attn::model::teacher_forced(model, out.sourceIds, out.decoderIds, request.options.controls);
    out.data = std::make_shared<const attn::AttentionData>(attn::seq2seq_attention(folder, run));
    return out;
}

attn::SceneSpec seq2seqSpec(const attn::SceneSpec& base, const Seq2SeqOutcome& outcome) {
    attn::SceneSpec spec = base;
    const bool same = base.is_loaded() && base.data->source == outcome.data->source &&
                      base.data->components.size() == outcome.data->components.size();
    spec.set_loaded(outcome.data);
    spec.data_dk.reset();
    spec.tokens.clear();
    spec.cross_text.clear();
    spec.embeddings.reset();
    spec.weights.reset();
    spec.model_ids.clear();
    spec.interventions = {};
    if (!same) {
        spec.component = outcome.data->default_component;
        spec.layer = 0;
    }
    const auto& shown = outcome.data->components.at(std::size_t(spec.component));
    spec.layer = std::min(spec.layer, shown.layers - 1);
    return spec;
}

QString parseSeq2SeqHeads(const QString& text, std::vector<attn::model::Site>* heads) {
    static const QRegularExpression item(
        QStringLiteral("^(encoder|decoder|cross)\\.([0-9]{1,4})\\.([0-9]{1,4})$"));
    for (const QString& raw : text.split(QLatin1Char(','))) {
        const QString trimmed = raw.trimmed();
        const QRegularExpressionMatch m = item.match(trimmed);
        if (!m.hasMatch()) return trimmed.isEmpty() ? QStringLiteral("(empty)") : trimmed;
        heads->push_back({*attn::model::component_named(m.captured(1).toStdString()),
                          m.captured(2).toInt(), m.captured(3).toInt()});
    }
    return {};
}

QString parseSeq2SeqKnockouts(const QString& text, std::vector<attn::model::Knockout>* knockouts) {
    static const QRegularExpression item(QStringLiteral(
        "^(encoder|decoder|cross)\\.([0-9]{1,4})\\.([0-9]{1,4}):([0-9]{1,6}|\\*)>([0-9]{1,6})$"));
    for (const QString& raw : text.split(QLatin1Char(','))) {
        const QString trimmed = raw.trimmed();
        const QRegularExpressionMatch m = item.match(trimmed);
        if (!m.hasMatch()) return trimmed.isEmpty() ? QStringLiteral("(empty)") : trimmed;
        const bool every = m.captured(4) == QLatin1StringView("*");
        knockouts->push_back({{*attn::model::component_named(m.captured(1).toStdString()),
                               m.captured(2).toInt(), m.captured(3).toInt()},
                              every ? -1 : m.captured(4).toInt(),
                              m.captured(5).toInt()});
    }
    return {};
}

QString seq2seqHeadsText(const std::vector<attn::model::Site>& heads) {
    QStringList out;
    for (const attn::model::Site& h : heads)
        out << QStringLiteral("%1.%2.%3")
                   .arg(QString::fromLatin1(attn::model::component_name(h.component)))
                   .arg(h.layer)
                   .arg(h.head);
    return out.join(QStringLiteral(", "));
}
