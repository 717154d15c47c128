// AttnScope — `attnscope attribute` on an encoder–decoder. GPL-3.0-or-later.
#include "cli/seq2seq_attribute_command.hpp"

#include <QCommandLineParser>
#include <QFile>
#include <QTextStream>
#include <algorithm>
#include <limits>
#include <new>
#include <optional>
#include <string_view>

#include "attn/attribution/seq2seq_attribution.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/scene/seq2seq_scene.hpp"
#include "attn/util/error.hpp"
#include "cli/cli_request.hpp"
#include "cli/cli_tr.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_values.hpp"
#include "cli/output_check.hpp"
#include "cli/scene_input.hpp"
#include "model/error_text.hpp"
#include "model/seq2seq_run.hpp"

namespace cli {
namespace {

struct AttributeRequest {
    Request files;  ///< --model, -o and --force, as output_check reads them
    QString text, target;
    attn::attrib::Seq2SeqAttributionRequest ask;
};

int failAttribute(QTextStream& err, const QString& message, int code) {
    err << "attnscope: " << message << "\n";
    err.flush();
    return code;
}

/// The request, or a one-line usage message in *ERROR.
std::optional<AttributeRequest> parseAttribute(const QStringList& arguments, QString* error) {
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const char* name : {"model", "text", "target", "target-id", "position", "methods", "steps",
                             "ablate", "faithfulness"})
        p.addOption({QString::fromLatin1(name), QString(), QStringLiteral("X")});
    p.addOption(
        {{QStringLiteral("o"), QStringLiteral("output")}, QString(), QStringLiteral("OUT")});
    for (const char* name : {"force", "scale", "no-scale"})
        p.addOption({QString::fromLatin1(name), QString()});
    QStringList args = arguments;
    args.removeAt(1);
    if (!p.parse(args)) {
        *error = tr("%1 (attribute on an encoder–decoder takes --model, --text, --target, "
                    "--position, --target-id, --methods, --steps, --scale/--no-scale, --ablate, "
                    "-o and --force)")
                     .arg(p.errorText());
        return std::nullopt;
    }
    if (const QString repeated = repeatedOption(p); !repeated.isEmpty()) {
        *error = repeated;
        return std::nullopt;
    }
    if (!p.positionalArguments().isEmpty()) {
        *error = tr("attribute takes no input file (%1)")
                     .arg(p.positionalArguments().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    AttributeRequest r;
    r.files.model = p.value(QStringLiteral("model"));
    r.files.output = p.value(QStringLiteral("output"));
    r.files.force = p.isSet(QStringLiteral("force"));
    r.text = p.value(QStringLiteral("text"));
    r.target = p.value(QStringLiteral("target"));
    if (r.text.isEmpty() || r.target.isEmpty() || r.files.output.isEmpty()) {
        *error = tr("%1 is an encoder–decoder: attribute needs --text SRC, --target TGT (the "
                    "target sentence; --target-id ID is the explained token) and -o OUT.npz")
                     .arg(r.files.model);
        return std::nullopt;
    }
    if (!r.files.output.endsWith(QLatin1StringView(".npz"), Qt::CaseInsensitive)) {
        *error = tr("%1: attribute writes .npz").arg(r.files.output);
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("faithfulness"))) {
        *error =
            tr("--faithfulness is not defined for an encoder–decoder yet: erasing a token "
               "would have to choose between the source and the target (see "
               "docs/attribution.md)");
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("scale")) && p.isSet(QStringLiteral("no-scale"))) {
        *error = tr("--scale and --no-scale contradict");
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("scale"))) r.ask.controls.scale = true;
    if (p.isSet(QStringLiteral("no-scale"))) r.ask.controls.scale = false;
    if (p.isSet(QStringLiteral("ablate"))) {
        const QString bad =
            parseSeq2SeqHeads(p.value(QStringLiteral("ablate")), &r.ask.controls.ablate);
        if (!bad.isEmpty()) {
            *error = tr("--ablate %1: expected encoder.L.H, decoder.L.H or cross.L.H").arg(bad);
            return std::nullopt;
        }
    }
    const auto number = [&](const char* name, qulonglong min, qulonglong max) {
        const QString text = p.value(QString::fromLatin1(name));
        const std::optional<qulonglong> v = decimalUnsigned(text);
        if (!v || *v < min || *v > max) {
            *error = tr("--%1 '%2': expected an integer from %3 to %4")
                         .arg(QLatin1StringView(name), text)
                         .arg(min)
                         .arg(max);
            return std::optional<qulonglong>();
        }
        return v;
    };
    constexpr qulonglong kMax = std::numeric_limits<int>::max();
    const struct {
        const char* name;
        qulonglong min, max;
    } numbers[] = {{"position", 0, kMax}, {"target-id", 0, kMax}, {"steps", 1, 1 << 16}};
    for (const auto& n : numbers) {
        if (!p.isSet(QString::fromLatin1(n.name))) continue;
        const std::optional<qulonglong> v = number(n.name, n.min, n.max);
        if (!v) return std::nullopt;
        const std::string_view name = n.name;
        if (name == "position") r.ask.position = attn::Index(*v);
        if (name == "target-id") r.ask.target = std::int32_t(*v);
        if (name == "steps") r.ask.steps = int(*v);
    }
    const QString list = p.value(QStringLiteral("methods")).trimmed();
    if (p.isSet(QStringLiteral("methods")) && list != QLatin1StringView("all"))
        for (const QString& item : list.split(QLatin1Char(','))) {
            const std::string name = item.trimmed().toStdString();
            if (const std::string why = attn::attrib::seq2seq_unavailable(name); !why.empty()) {
                *error = tr("--methods: %1").arg(QString::fromStdString(why));
                return std::nullopt;
            }
            auto& m = r.ask.methods;
            if (std::find(m.begin(), m.end(), name) == m.end()) m.push_back(name);
        }
    return r;
}

attn::io::NpzMembers members(const std::vector<std::int32_t>& source,
                             const std::vector<std::int32_t>& target,
                             const attn::attrib::AttributionResult& result) {
    const auto scalar_i4 = [](std::int64_t v) {
        const std::int32_t value[] = {std::int32_t(v)};
        return attn::io::npy_i4_bytes(value);
    };
    const float logit[] = {float(result.logit)};
    const std::uint64_t one[] = {1};
    attn::io::NpzMembers m{{"source_ids", attn::io::npy_i4_bytes(source)},
                           {"target_ids", attn::io::npy_i4_bytes(target)},
                           {"position", scalar_i4(result.position)},
                           {"target", scalar_i4(result.target)},
                           {"logit", attn::io::npy_bytes(logit, one)}};
    for (const attn::attrib::NamedArray& a : result.arrays)
        m.push_back({a.name, attn::io::npy_bytes(a.values, a.shape)});
    return m;
}

}  // namespace

bool isSeq2SeqAttribute(const QStringList& arguments) {
    for (qsizetype i = 2; i + 1 < arguments.size(); ++i)
        if (arguments.at(i) == QLatin1StringView("--model")) {
            try {
                return attn::model::is_seq2seq_folder(
                    QFile::encodeName(arguments.at(i + 1)).toStdString());
            } catch (const std::exception&) {
                return false;  // no readable config.json: the decoder-only path names the problem
            }
        }
    return false;
}

int runSeq2SeqAttribute(const QStringList& arguments, QTextStream& err) {
    QString error;
    const std::optional<AttributeRequest> r = parseAttribute(arguments, &error);
    if (!r)
        return failAttribute(err, error + QStringLiteral("\nTry 'attnscope --help'."), kExitUsage);
    if (checkOutputFile(r->files, SceneInput{}, &error) != kExitOk)
        return failAttribute(err, error, kExitOutput);
    attn::model::Seq2SeqFolder folder;
    try {
        folder = attn::model::open_seq2seq(QFile::encodeName(r->files.model).toStdString());
    } catch (const std::bad_alloc&) {
        return failAttribute(err, tr("%1: not enough memory to open the model").arg(r->files.model),
                             kExitResource);
    } catch (const std::exception& e) {
        return failAttribute(err, errorText(e, r->files.model), kExitInput);
    }
    attn::io::NpzMembers out;
    try {
        const std::vector<std::int32_t> source = folder.source->encode(r->text.toStdString());
        const std::vector<std::int32_t> target =
            attn::decoder_inputs(folder, r->target.toStdString());
        out = members(source, target,
                      attn::attrib::attribute_seq2seq(*folder.model, source, target, r->ask));
    } catch (const std::bad_alloc&) {
        return failAttribute(
            err, tr("not enough memory for the attribution; use shorter sentences"), kExitResource);
    } catch (const attn::ResourceError& e) {  // past the work limit
        return failAttribute(err, errorText(e, r->files.model), kExitResource);
    } catch (const attn::ArgumentError& e) {
        return failAttribute(err, errorText(e, r->files.model), kExitUsage);
    } catch (const std::exception& e) {
        return failAttribute(err, errorText(e, r->files.model), kExitInput);
    }
    try {
        attn::io::write_npz(QFile::encodeName(r->files.output).toStdString(), out);
    } catch (const std::bad_alloc&) {
        return failAttribute(err, tr("%1: not enough memory to write").arg(r->files.output),
                             kExitOutput);
    } catch (const std::exception& e) {
        return failAttribute(err, errorText(e, r->files.output), kExitOutput);
    }
    return kExitOk;
}

QString seq2seqAttributeHelp() {
    return tr(
        "  attnscope attribute --model SEQ2SEQ_DIR --text SRC --target TGT [--position P]\n"
        "        [--target-id ID] [--methods LIST|all] [--steps M] [--scale|--no-scale]\n"
        "        [--ablate PART.L.H,…] -o OUT.npz\n"
        "                           an encoder–decoder (Marian, T5): P a target position\n"
        "                           (default the last), ID the explained token (default the\n"
        "                           argmax); source_*/target_* per method (saliency,\n"
        "                           input_x_gradient, integrated_gradients with ig_delta),\n"
        "                           encoder_/decoder_/cross_attention_x_gradient and\n"
        "                           _norm_based [L,H,rows,cols], source_ids, target_ids,\n"
        "                           position, target, logit\n");
}

}  // namespace cli
