// AttnScope — a parsed `attnscope render|compute …` command line. GPL-3.0-or-later.
#include "cli/cli_request.hpp"

#include <algorithm>
#include <limits>

#include "cli/cli_tr.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>

#include "attn/io/formats.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"
#include "cli/attribute_command.hpp"
#include "cli/batch_command.hpp"
#include "cli/generate_command.hpp"
#include "cli/intervention_options.hpp"
#include "cli/option_values.hpp"
#include "cli/scene_options.hpp"
#include "cli/seq2seq_command.hpp"
#include "export/export_options.hpp"

namespace cli {
namespace {

void addCommonOptions(QCommandLineParser& p) {
    p.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 tr("output file"),
                 QStringLiteral("OUT")});
    p.addOption({QStringLiteral("force"), tr("replace a read-only output file")});
    p.addOption({QStringLiteral("view"), tr("view"), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("rollout"), tr("add the attention rollout")});
    p.addOption({QStringLiteral("layer"), tr("layer"), QStringLiteral("L")});
    p.addOption({QStringLiteral("head"), tr("head"), QStringLiteral("H")});
    p.addOption({QStringLiteral("query"), tr("query"), QStringLiteral("Q")});
    p.addOption({QStringLiteral("component"), tr("component"), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("size"), tr("size"), QStringLiteral("WxH")});
    p.addOption({QStringLiteral("dpi"), tr("dpi"), QStringLiteral("N")});
    p.addOption({QStringLiteral("colormap"), tr("colour map"), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("memory-budget"), tr("memory budget"), QStringLiteral("SIZE")});
    p.addOption({QStringLiteral("stages"), tr("stages to write"), QStringLiteral("LIST")});
    p.addOption({QStringLiteral("model"), tr("model folder (any family AttnScope runs)"),
                 QStringLiteral("DIR")});
    p.addOption({QStringLiteral("layers"), tr("layers of the run"), QStringLiteral("LIST")});
    p.addOption({QStringLiteral("no-rotary"), tr("rotary positions off in the run")});
    p.addOption({QStringLiteral("no-softcap"), tr("soft-capping off in the run")});
    p.addOption({{QStringLiteral("h"), QStringLiteral("help")}, tr("help")});
    p.addOption({{QStringLiteral("v"), QStringLiteral("version")}, tr("version")});
    addSceneOptions(p);
    addInterventionOptions(p);
    addAttributeOptions(p);
}

bool parseInt(const QString& text, int min, int* out) {
    const std::optional<qulonglong> v = decimalUnsigned(text);
    if (!v || *v < qulonglong(min) || *v > qulonglong(std::numeric_limits<int>::max()))
        return false;
    *out = static_cast<int>(*v);
    return true;
}

}  // namespace

std::optional<Request> parseRequest(const QStringList& arguments, QString* error) {
    Request r;
    QStringList args = arguments;
    const QString sub = args.size() > 1 ? args.at(1) : QString();
    if (sub == QLatin1StringView("render")) {
        r.command = Request::Command::Render;
    } else if (sub == QLatin1StringView("compute")) {
        r.command = Request::Command::Compute;
    } else if (sub == QLatin1StringView("census")) {
        r.command = Request::Command::Census;
    } else if (sub == QLatin1StringView("attribute")) {
        r.command = Request::Command::Attribute;
    } else if (sub == QLatin1StringView("--help") || sub == QLatin1StringView("-h") ||
               sub == QLatin1StringView("help")) {
        r.command = Request::Command::Help;
        return r;
    } else if (sub == QLatin1StringView("--version") || sub == QLatin1StringView("-v")) {
        r.command = Request::Command::Version;
        return r;
    } else {
        *error = tr("unknown command '%1' (expected render, compute, census or attribute; see "
                    "--help)")
                     .arg(sub);
        return std::nullopt;
    }
    args.removeAt(1);  // the parser sees "attnscope [FILE] options…"

    QCommandLineParser p;
    addCommonOptions(p);
    if (!p.parse(args)) {
        *error = p.errorText();
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("help"))) {
        r.command = Request::Command::Help;
        return r;
    }
    if (p.isSet(QStringLiteral("version"))) {
        r.command = Request::Command::Version;
        return r;
    }
    if (const QString repeated = repeatedOption(p); !repeated.isEmpty()) {
        *error = repeated;
        return std::nullopt;
    }
    r.given = p.optionNames();
    const QStringList positional = p.positionalArguments();
    if (positional.size() > 1) {
        *error = tr("more than one input file: %1").arg(positional.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    if (!positional.isEmpty()) r.file = positional.first();
    r.model = p.value(QStringLiteral("model"));
    if (p.isSet(QStringLiteral("model")) && r.model.isEmpty()) {
        *error = tr("--model: the folder name is empty");
        return std::nullopt;
    }
    if (!r.model.isEmpty() && !r.file.isEmpty()) {
        *error = tr("--model runs a model on --text; it takes no input file (%1)").arg(r.file);
        return std::nullopt;
    }
    // A file brings its own tokens (or a session its own sentence): a sentence typed beside it
    // would replace them without a word.
    for (const char* option : {"text", "cross-text"})
        if (!r.file.isEmpty() && p.isSet(QString::fromLatin1(option))) {
            *error = tr("--%1 gives the sentence of the default scene or of --model; %2 brings "
                        "its own tokens (drop --%1 or the file)")
                         .arg(QLatin1StringView(option), r.file);
            return std::nullopt;
        }
    if (!r.model.isEmpty()) {
        r.sceneArgs = args;
        r.given = p.optionNames();
        if (const QString bad = inapplicableOptions(r, true); !bad.isEmpty()) {
            *error = tr("%1: not an option of a --model run (the model fixes its heads, width, "
                        "scores and positions)")
                         .arg(bad);
            return std::nullopt;
        }
    }
    if (p.isSet(QStringLiteral("layers"))) {
        if (r.model.isEmpty()) {
            *error = tr("--layers applies to a --model run");
            return std::nullopt;
        }
        for (const QString& item : p.value(QStringLiteral("layers")).split(QLatin1Char(','))) {
            int layer = 0;
            if (!parseInt(item.trimmed(), 0, &layer)) {
                *error = tr("--layers: '%1' is not a list of layer indices such as 0,3")
                             .arg(p.value(QStringLiteral("layers")));
                return std::nullopt;
            }
            if (std::find(r.modelLayers.begin(), r.modelLayers.end(), layer) == r.modelLayers.end())
                r.modelLayers.push_back(layer);
        }
    }
    r.output = p.value(QStringLiteral("output"));
    r.force = p.isSet(QStringLiteral("force"));
    if (r.output.isEmpty()) {
        *error = tr("no output file: give -o OUT");
        return std::nullopt;
    }
    exporting::Format format{};
    const bool known = exporting::formatFromPath(r.output, &format);
    const QString ext = r.output.section(QLatin1Char('.'), -1).toLower();
    if (r.command == Request::Command::Render && (!known || !exporting::isFigure(format))) {
        *error = tr("%1: render writes .png, .svg or .pdf").arg(r.output);
        return std::nullopt;
    }
    if (r.command == Request::Command::Compute && ext != QLatin1StringView("npz") &&
        ext != QLatin1StringView("json")) {
        *error = tr("%1: compute writes .npz or .json").arg(r.output);
        return std::nullopt;
    }
    if (r.command == Request::Command::Census && ext != QLatin1StringView("csv") &&
        ext != QLatin1StringView("json")) {
        *error = tr("%1: census writes .csv or .json").arg(r.output);
        return std::nullopt;
    }
    r.rollout = p.isSet(QStringLiteral("rollout"));
    if (r.rollout && r.command != Request::Command::Compute) {
        *error = tr("--rollout belongs to compute");
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("view"))) {
        r.view = p.value(QStringLiteral("view"));
        const bool ok = viewNames().contains(r.view) ||
                        (r.view.startsWith(QLatin1StringView("lens:")) && r.view.size() > 5);
        if (!ok) {
            *error = tr("--view: '%1' is not %2 or lens:NAME")
                         .arg(r.view, viewNames().join(QStringLiteral(", ")));
            return std::nullopt;
        }
    }
    int value = 0;
    if (p.isSet(QStringLiteral("layer"))) {
        if (!parseInt(p.value(QStringLiteral("layer")), 0, &value)) {
            *error = tr("--layer: '%1' is not a layer index").arg(p.value(QStringLiteral("layer")));
            return std::nullopt;
        }
        r.layer = value;
    }
    if (p.isSet(QStringLiteral("head"))) {
        if (!parseInt(p.value(QStringLiteral("head")), 0, &value)) {
            *error = tr("--head: '%1' is not a head index").arg(p.value(QStringLiteral("head")));
            return std::nullopt;
        }
        r.head = value;
    }
    if (p.isSet(QStringLiteral("query"))) {
        if (!parseInt(p.value(QStringLiteral("query")), 0, &value)) {
            *error = tr("--query: '%1' is not a query index").arg(p.value(QStringLiteral("query")));
            return std::nullopt;
        }
        r.query = value;
    }
    r.component = p.value(QStringLiteral("component"));
    if (p.isSet(QStringLiteral("size"))) {
        static const QRegularExpression re(QStringLiteral("^(\\d{1,5})[xX×](\\d{1,5})$"));
        const auto m = re.match(p.value(QStringLiteral("size")));
        if (!m.hasMatch() || m.captured(1).toInt() < 16 || m.captured(2).toInt() < 16 ||
            m.captured(1).toInt() > 20000 || m.captured(2).toInt() > 20000) {
            *error = tr("--size: '%1' is not WxH with 16…20000 pixels a side (e.g. 1200x900)")
                         .arg(p.value(QStringLiteral("size")));
            return std::nullopt;
        }
        r.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    if (p.isSet(QStringLiteral("dpi"))) {
        const std::optional<double> dpi = decimalNumber(p.value(QStringLiteral("dpi")));
        r.dpi = dpi.value_or(0);
        if (!dpi || r.dpi < 10 || r.dpi > 2400) {
            *error = tr("--dpi: '%1' is not a resolution in 10…2400")
                         .arg(p.value(QStringLiteral("dpi")));
            return std::nullopt;
        }
    }
    if (p.isSet(QStringLiteral("colormap"))) {
        r.colorMap = p.value(QStringLiteral("colormap")).toLower();
        static const QStringList maps{QStringLiteral("viridis"), QStringLiteral("magma"),
                                      QStringLiteral("cividis"), QStringLiteral("greys")};
        if (!maps.contains(r.colorMap)) {
            *error = tr("--colormap: '%1' is not viridis, magma, cividis or greys").arg(r.colorMap);
            return std::nullopt;
        }
    }
    if (p.isSet(QStringLiteral("memory-budget"))) {
        try {
            r.memoryBudget =
                attn::parse_bytes(p.value(QStringLiteral("memory-budget")).toStdString());
        } catch (const attn::ArgumentError& e) {
            *error = tr("--memory-budget: %1").arg(QString::fromUtf8(e.what()));
            return std::nullopt;
        }
    }
    // The scene options below size allocations by their values (--pad 99999999999): the
    // budget they are checked against is the one given here.
    attn::set_memory_budget(r.memoryBudget);
    if (p.isSet(QStringLiteral("stages"))) {
        if (r.command != Request::Command::Compute) {
            *error = tr("--stages applies to compute only");
            return std::nullopt;
        }
        const QStringList all = r.stages;
        r.stages.clear();
        for (const QString& s : p.value(QStringLiteral("stages")).split(QLatin1Char(','))) {
            const QString name = s.trimmed().toLower();
            // "all" is the default the help names: every stage, as without --stages.
            if (name == QLatin1String("all")) {
                for (const QString& a : all)
                    if (!r.stages.contains(a)) r.stages.push_back(a);
                continue;
            }
            if (!all.contains(name)) {
                *error = tr("--stages: '%1' is not raw, scaled, softcapped, masked, weights, "
                            "output or all")
                             .arg(s);
                return std::nullopt;
            }
            if (!r.stages.contains(name)) r.stages.push_back(name);
        }
    }
    // Validate the scene options now (on the default scene) so a typo is a usage error even
    // before the input file is read; they are applied again on top of the loaded file.
    const QString sceneError = applySceneOptions(p, r.spec);
    if (!sceneError.isEmpty()) {
        *error = sceneError;
        return std::nullopt;
    }
    if (const QString bad = parseInterventionOptions(p, r); !bad.isEmpty()) {
        *error = bad;
        return std::nullopt;
    }
    if (const QString bad = parseAttributeOptions(p, r); !bad.isEmpty()) {
        *error = bad;
        return std::nullopt;
    }
    r.sceneArgs = args;
    return r;
}

QString inapplicableOptions(const Request& request, bool model) {
    QStringList names{QStringLiteral("heads"),    QStringLiteral("d-model"),
                      QStringLiteral("kv-heads"), QStringLiteral("score"),
                      QStringLiteral("sigma"),    QStringLiteral("positional"),
                      QStringLiteral("seed")};
    if (model) names << QStringLiteral("dk") << QStringLiteral("cross-text");
    QStringList found;
    for (const QString& n : names)
        if (request.given.contains(n)) found << QStringLiteral("--") + n;
    return found.join(QStringLiteral(", "));
}

QString reapplySceneOptions(const Request& request, attn::SceneSpec& spec) {
    QCommandLineParser p;
    addCommonOptions(p);
    p.parse(request.sceneArgs);
    return applySceneOptions(p, spec);
}

}  // namespace cli
