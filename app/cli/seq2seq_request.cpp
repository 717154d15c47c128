// AttnScope — what an encoder–decoder command line asks for. GPL-3.0-or-later.
#include "cli/seq2seq_request.hpp"

#include <QCommandLineParser>

#include "cli/cli_tr.hpp"
#include "cli/option_values.hpp"
#include "model/seq2seq_run.hpp"

namespace cli {
namespace {

QString commandName(Seq2SeqCommand c) {
    return c == Seq2SeqCommand::Translate ? QStringLiteral("translate")
           : c == Seq2SeqCommand::Patch   ? QStringLiteral("patch")
                                          : QStringLiteral("compute --target");
}

/// The valued options of COMMAND besides --model and -o.
QStringList valuedOptions(Seq2SeqCommand c) {
    QStringList v = {QStringLiteral("model"), QStringLiteral("ablate"),
                     QStringLiteral("ablate-mode"), QStringLiteral("knockout")};
    if (c == Seq2SeqCommand::Translate)
        v << QStringLiteral("text") << QStringLiteral("beam") << QStringLiteral("max-tokens")
          << QStringLiteral("length-penalty");
    else if (c == Seq2SeqCommand::Compute)
        v << QStringLiteral("text") << QStringLiteral("target");
    else
        v << QStringLiteral("clean") << QStringLiteral("corrupt") << QStringLiteral("target")
          << QStringLiteral("corrupt-target") << QStringLiteral("answer")
          << QStringLiteral("wrong");
    return v;
}

QString takes(Seq2SeqCommand c) {
    switch (c) {
        case Seq2SeqCommand::Translate:
            return tr(
                "translate takes --model, --text, --beam, --max-tokens, --length-penalty, "
                "--scale/--no-scale, --ablate, -o and --force");
        case Seq2SeqCommand::Patch:
            return tr(
                "patch with an encoder–decoder takes --model, --clean, --corrupt, --target, "
                "--corrupt-target, --answer, --wrong, --scale/--no-scale, --ablate, "
                "--ablate-mode, --knockout, -o and --force");
        case Seq2SeqCommand::Compute:
            break;
    }
    return tr(
        "compute --target takes --model, --text, --target, --scale/--no-scale, --ablate, "
        "--ablate-mode, --knockout, --logit-lens, -o and --force");
}

/// The interventions of P into R's controls; "" or the message.
QString parseInterventions(const QCommandLineParser& p, Seq2SeqCommand c, Seq2SeqRequest& r) {
    attn::model::Seq2SeqControls& controls = r.options.controls;
    if (p.isSet(QStringLiteral("ablate"))) {
        const QString bad = parseSeq2SeqHeads(p.value(QStringLiteral("ablate")), &controls.ablate);
        if (!bad.isEmpty())
            return tr("--ablate %1: expected encoder.L.H, decoder.L.H or cross.L.H").arg(bad);
    }
    if (p.isSet(QStringLiteral("ablate-mode"))) {
        const QString mode = p.value(QStringLiteral("ablate-mode")).toLower();
        if (!p.isSet(QStringLiteral("ablate"))) return tr("--ablate-mode applies to --ablate");
        if (mode == QLatin1StringView("mean"))
            controls.ablation = attn::model::AblationMode::Mean;
        else if (mode != QLatin1StringView("zero"))
            return tr("--ablate-mode: '%1' is not zero or mean").arg(mode);
        if (c == Seq2SeqCommand::Translate && mode == QLatin1StringView("mean"))
            return tr(
                "--ablate-mode mean: a translation runs one token a step, and the mean over "
                "positions needs the whole target (use compute --target)");
    }
    if (p.isSet(QStringLiteral("knockout"))) {
        if (c == Seq2SeqCommand::Translate)
            return tr(
                "--knockout: a translation runs one token a step, and a knockout's query "
                "is a position of the whole target (use compute --target)");
        const QString bad =
            parseSeq2SeqKnockouts(p.value(QStringLiteral("knockout")), &controls.knockouts);
        if (!bad.isEmpty())
            return tr("--knockout %1: expected PART.L.H:Q>K (PART encoder, decoder or cross; Q "
                      "a position or *), such as cross.1.0:3>2")
                .arg(bad);
    }
    return {};
}

/// Translate's numbers (--beam, --max-tokens, --length-penalty) into R; "" or the message.
QString parseSearch(const QCommandLineParser& p, Seq2SeqRequest& r) {
    for (const auto& [name, max, out] : {std::tuple{"beam", 64, &r.options.beam},
                                         std::tuple{"max-tokens", 4096, &r.options.max_tokens}}) {
        if (!p.isSet(QString::fromLatin1(name))) continue;
        const auto v = decimalUnsigned(p.value(QString::fromLatin1(name)));
        if (!v || *v < 1 || *v > qulonglong(max))
            return tr("--%1 %2: expected an integer from 1 to %3")
                .arg(QLatin1StringView(name), p.value(QString::fromLatin1(name)))
                .arg(max);
        *out = int(*v);
    }
    if (p.isSet(QStringLiteral("length-penalty"))) {
        const auto a = decimalNumber(p.value(QStringLiteral("length-penalty")));
        if (!a || *a < 0 || *a > 10)
            return tr("--length-penalty %1: expected a number from 0 to 10")
                .arg(p.value(QStringLiteral("length-penalty")));
        r.options.length_penalty = *a;
    }
    return {};
}

/// Patch's texts and answers into R; "" or the message.
QString parsePatchInputs(const QCommandLineParser& p, Seq2SeqRequest& r) {
    for (const char* name : {"clean", "target", "answer", "wrong"})
        if (!p.isSet(QString::fromLatin1(name)))
            return tr("patch with an encoder–decoder needs --model DIR --clean SRC --target TGT "
                      "--answer ID --wrong ID -o OUT.npz, and --corrupt SRC2 or --corrupt-target "
                      "TGT2 (--%1 is missing)")
                .arg(QLatin1StringView(name));
    if (!p.isSet(QStringLiteral("corrupt")) && !p.isSet(QStringLiteral("corrupt-target")))
        return tr(
            "patch with an encoder–decoder needs --corrupt SRC2 (the same --target) or "
            "--corrupt-target TGT2 (the same source), or both");
    r.text = p.value(QStringLiteral("clean"));
    r.corrupt = p.value(QStringLiteral("corrupt"));
    r.corruptTarget = p.value(QStringLiteral("corrupt-target"));
    for (const auto& [name, slot] :
         {std::pair{"answer", &r.answer}, std::pair{"wrong", &r.wrong}}) {
        const std::optional<qulonglong> v = decimalUnsigned(p.value(QString::fromLatin1(name)));
        if (!v || *v > 0x7fffffffULL)
            return tr("--%1: '%2' is not a token id")
                .arg(QLatin1StringView(name), p.value(QString::fromLatin1(name)));
        *slot = std::int32_t(*v);
    }
    return {};
}

}  // namespace

std::optional<Seq2SeqRequest> parseSeq2Seq(const QStringList& arguments, Seq2SeqCommand command,
                                           QString* error) {
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const QString& name : valuedOptions(command))
        p.addOption({name, QString(), QStringLiteral("X")});
    p.addOption(
        {{QStringLiteral("o"), QStringLiteral("output")}, QString(), QStringLiteral("OUT")});
    for (const char* name : {"force", "scale", "no-scale", "logit-lens"})
        p.addOption({QString::fromLatin1(name), QString()});
    QStringList args = arguments;
    args.removeAt(1);
    const QString name = commandName(command);
    const auto fail = [&](const QString& message) {
        *error = message;
        return std::nullopt;
    };
    if (!p.parse(args)) return fail(QStringLiteral("%1 (%2)").arg(p.errorText(), takes(command)));
    if (const QString repeated = repeatedOption(p); !repeated.isEmpty()) return fail(repeated);
    if (!p.positionalArguments().isEmpty())
        return fail(tr("%1 takes no input file (%2)")
                        .arg(name, p.positionalArguments().join(QStringLiteral(", "))));
    Seq2SeqRequest r;
    r.files.model = p.value(QStringLiteral("model"));
    r.files.output = p.value(QStringLiteral("output"));
    r.files.force = p.isSet(QStringLiteral("force"));
    if (command == Seq2SeqCommand::Patch) {
        if (const QString bad = parsePatchInputs(p, r); !bad.isEmpty()) return fail(bad);
    } else {
        r.text = p.value(QStringLiteral("text"));
    }
    r.target = command == Seq2SeqCommand::Translate ? QString() : p.value(QStringLiteral("target"));
    if (r.files.model.isEmpty() || r.text.isEmpty() || r.files.output.isEmpty())
        return fail(command == Seq2SeqCommand::Translate
                        ? tr("translate needs --model DIR, --text SRC and -o OUT.npz")
                    : command == Seq2SeqCommand::Patch
                        ? tr("patch needs --model DIR, a non-empty --clean SRC and -o OUT.npz")
                        : tr("compute with an encoder–decoder needs --model DIR, --text SRC, "
                             "--target TGT and -o OUT.npz"));
    if (command == Seq2SeqCommand::Compute && !p.isSet(QStringLiteral("target")))
        return fail(tr("%1 is an encoder–decoder: compute needs --target TGT, the target "
                       "sentence (or run translate)")
                        .arg(r.files.model));
    if (command != Seq2SeqCommand::Translate && r.target.isEmpty())
        return fail(tr("--target: the target sentence is empty"));
    if (!r.files.output.endsWith(QLatin1StringView(".npz"), Qt::CaseInsensitive))
        return fail(tr("-o %1: %2 writes .npz").arg(r.files.output, name));
    if (p.isSet(QStringLiteral("scale")) && p.isSet(QStringLiteral("no-scale")))
        return fail(tr("--scale and --no-scale contradict"));
    if (p.isSet(QStringLiteral("logit-lens")) && command != Seq2SeqCommand::Compute)
        return fail(
            tr("--logit-lens belongs to compute (--target: the lens over the decoder's "
               "layers)"));
    r.logitLens = p.isSet(QStringLiteral("logit-lens"));
    if (const QString bad = parseInterventions(p, command, r); !bad.isEmpty()) return fail(bad);
    if (p.isSet(QStringLiteral("scale"))) r.options.controls.scale = true;
    if (p.isSet(QStringLiteral("no-scale"))) r.options.controls.scale = false;
    if (command == Seq2SeqCommand::Translate)
        if (const QString bad = parseSearch(p, r); !bad.isEmpty()) return fail(bad);
    return r;
}

}  // namespace cli
