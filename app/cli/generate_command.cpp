// AttnScope — `attnscope generate`. GPL-3.0-or-later.
#include "cli/generate_command.hpp"

#include <QCommandLineParser>
#include <QFile>
#include <QTextStream>
#include <algorithm>
#include <limits>
#include <new>
#include <span>
#include <utility>

#include "attn/generate/generate.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/models/families.hpp"
#include "attn/util/error.hpp"
#include "cli/cli_tr.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_values.hpp"
#include "cli/output_check.hpp"
#include "model/error_text.hpp"

namespace cli {
namespace {

/// What the command line asks for, or a usage message.
struct GenerateRequest {
    Request files;  ///< --model, -o and --force, as output_check reads them
    QString text;
    attn::gen::GenerateOptions options;
};

/// "A,B,C" as non-negative integers, or nothing when one is not.
std::optional<std::vector<std::int32_t>> idList(const QString& text) {
    std::vector<std::int32_t> ids;
    for (const QString& part : text.split(QLatin1Char(','))) {
        const auto v = decimalUnsigned(part);
        if (!v || *v > qulonglong(std::numeric_limits<std::int32_t>::max())) return std::nullopt;
        ids.push_back(std::int32_t(*v));
    }
    return ids;
}

/// "L.H,L.H" as sorted, unique heads, or nothing when one is not a layer.head pair.
std::optional<std::vector<attn::model::Site>> headList(const QString& text) {
    std::vector<attn::model::Site> heads;
    for (const QString& part : text.split(QLatin1Char(','))) {
        const QStringList lh = part.split(QLatin1Char('.'));
        const auto l = lh.size() == 2 ? decimalUnsigned(lh[0]) : std::nullopt;
        const auto h = lh.size() == 2 ? decimalUnsigned(lh[1]) : std::nullopt;
        if (!l || !h || *l > 1u << 20 || *h > 1u << 20) return std::nullopt;
        heads.push_back({attn::model::kSingleStack, int(*l), int(*h)});
    }
    std::sort(heads.begin(), heads.end());
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    return heads;
}

std::optional<GenerateRequest> parse(const QStringList& arguments, QString* error) {
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const auto add = [&](const char* name, const char* value) {
        p.addOption({QString::fromLatin1(name), QString(), QString::fromLatin1(value)});
    };
    static constexpr std::pair<const char*, const char*> kValued[] = {
        {"model", "DIR"},    {"text", "T"},       {"tokens", "N"}, {"temperature", "X"},
        {"top-k", "K"},      {"top-p", "P"},      {"seed", "S"},   {"stop", "IDS"},
        {"ablate", "HEADS"}, {"ablation", "MODE"}};
    for (const auto& [name, value] : kValued)
        add(name, value);
    p.addOption(
        {{QStringLiteral("o"), QStringLiteral("output")}, QString(), QStringLiteral("OUT")});
    p.addOption({QStringLiteral("force"), QString()});
    p.addOption({QStringLiteral("greedy"), QString()});
    p.addOption({QStringLiteral("no-eos"), QString()});
    QStringList args = arguments;
    args.removeAt(1);
    if (!p.parse(args)) {
        *error = p.errorText();
        return std::nullopt;
    }
    if (const QString repeated = repeatedOption(p); !repeated.isEmpty()) {
        *error = repeated;
        return std::nullopt;
    }
    if (!p.positionalArguments().isEmpty()) {
        *error = tr("generate takes no input file (%1); give --model and --text")
                     .arg(p.positionalArguments().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    GenerateRequest r;
    r.files.model = p.value(QStringLiteral("model"));
    r.files.output = p.value(QStringLiteral("output"));
    r.files.force = p.isSet(QStringLiteral("force"));
    r.text = p.value(QStringLiteral("text"));
    if (r.files.model.isEmpty() || r.text.isEmpty() || r.files.output.isEmpty()) {
        *error = tr("generate needs --model DIR, --text T and -o OUT.npz");
        return std::nullopt;
    }
    if (!r.files.output.endsWith(QLatin1StringView(".npz"), Qt::CaseInsensitive)) {
        *error = tr("-o %1: generate writes .npz").arg(r.files.output);
        return std::nullopt;
    }
    attn::gen::GenerateOptions& o = r.options;
    const auto number = [&](const char* name, double min, double max, double* out) {
        const QString v = p.value(QString::fromLatin1(name));
        const auto d = decimalNumber(v);
        if (!d || *d < min || *d > max) {
            *error = tr("--%1 %2: expected a number from %3 to %4")
                         .arg(QString::fromLatin1(name), v)
                         .arg(min)
                         .arg(max);
            return false;
        }
        *out = *d;
        return true;
    };
    double v = 16;
    if (p.isSet(QStringLiteral("tokens")) && !number("tokens", 0, 1 << 20, &v)) return {};
    o.tokens = int(v);
    if (v != double(o.tokens)) {
        *error = tr("--tokens: a whole number of tokens");
        return std::nullopt;
    }
    o.sampling.greedy = p.isSet(QStringLiteral("greedy"));
    const bool sampled = p.isSet(QStringLiteral("temperature")) ||
                         p.isSet(QStringLiteral("top-k")) || p.isSet(QStringLiteral("top-p")) ||
                         p.isSet(QStringLiteral("seed"));
    if (o.sampling.greedy && sampled) {
        *error =
            tr("--greedy takes the most probable token; --temperature, --top-k, --top-p and "
               "--seed are for sampling");
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("temperature"))) {
        if (!number("temperature", 0, 1e6, &v)) return {};
        o.sampling.temperature = float(v);
    }
    if (p.isSet(QStringLiteral("top-k"))) {
        // A count of tokens: 1.5 would be cut to 1 without a word.
        const auto k = decimalUnsigned(p.value(QStringLiteral("top-k")));
        if (!k || *k > 1u << 30) {
            *error = tr("--top-k %1: expected a whole number of tokens from 0 to %2")
                         .arg(p.value(QStringLiteral("top-k")))
                         .arg(1 << 30);
            return std::nullopt;
        }
        o.sampling.top_k = int(*k);
    }
    if (p.isSet(QStringLiteral("top-p"))) {
        if (!number("top-p", 1e-9, 1, &v)) return {};
        o.sampling.top_p = float(v);
    }
    if (p.isSet(QStringLiteral("seed"))) {
        const auto s = decimalUnsigned(p.value(QStringLiteral("seed")));
        if (!s) {
            *error =
                tr("--seed %1: expected a whole number ≥ 0").arg(p.value(QStringLiteral("seed")));
            return std::nullopt;
        }
        o.sampling.seed = *s;
    }
    if (p.isSet(QStringLiteral("stop"))) {
        const auto ids = idList(p.value(QStringLiteral("stop")));
        if (!ids) {
            *error = tr("--stop %1: expected token ids, e.g. 13,198")
                         .arg(p.value(QStringLiteral("stop")));
            return std::nullopt;
        }
        o.stop_ids = *ids;
    }
    o.stop_at_eos = !p.isSet(QStringLiteral("no-eos"));
    if (p.isSet(QStringLiteral("ablate"))) {
        const auto heads = headList(p.value(QStringLiteral("ablate")));
        if (!heads) {
            *error = tr("--ablate %1: expected heads as layer.head, e.g. 0.3,5.1")
                         .arg(p.value(QStringLiteral("ablate")));
            return std::nullopt;
        }
        o.controls.interventions.ablated = *heads;
    }
    const QString mode = p.value(QStringLiteral("ablation"));
    if (!mode.isEmpty() && mode != QLatin1StringView("zero") && mode != QLatin1StringView("mean")) {
        *error = tr("--ablation %1: expected zero or mean").arg(mode);
        return std::nullopt;
    }
    if (mode == QLatin1StringView("mean"))
        o.controls.interventions.ablation = attn::model::AblationMode::Mean;
    return r;
}

/// The .npz members of G (see generateHelp).
attn::io::NpzMembers members(const attn::gen::Generation& g) {
    using attn::io::npy_bytes;
    const attn::model::Run& run = *g.run;
    const std::uint64_t n = g.ids.size(), layers = run.layers.size(),
                        heads = layers ? run.layers[0].heads.size() : 0;
    std::vector<float> weights;
    weights.reserve(layers * heads * n * n);
    for (const attn::model::LayerAttention& l : run.layers)
        for (const attn::HeadResult& h : l.heads)
            weights.insert(weights.end(), h.weights.data(), h.weights.data() + h.weights.size());
    const std::int32_t generated = std::int32_t(g.ids.size() - g.prompt);
    const std::uint64_t shape_n[] = {n}, shape_w[] = {layers, heads, n, n};
    return {{"token_ids", attn::io::npy_i4_bytes(g.ids)},
            {"generated", attn::io::npy_i4_bytes(std::span(&generated, 1))},
            {"logprobs", npy_bytes(g.logprobs, shape_n)},
            {"weights", npy_bytes(weights, shape_w)}};
}

int fail(QTextStream& err, const QString& message, int code) {
    err << "attnscope: " << message << "\n";
    err.flush();
    return code;
}

}  // namespace

QString generateHelp() {
    return tr(
        "generate options (attnscope generate --model DIR --text T -o OUT.npz):\n"
        "  --tokens N               at most N new tokens (default 16); stops earlier at\n"
        "                           the end-of-text token (unless --no-eos), a --stop id\n"
        "                           or the model's last position\n"
        "  --greedy                 the most probable token each step (default: sample)\n"
        "  --temperature X          divide the logits by X (default 1; 0: greedy)\n"
        "  --top-k K, --top-p P     keep the K most probable / the smallest set reaching P\n"
        "  --seed S                 the draw's seed (default 0): equal seeds, equal text\n"
        "  --stop ID,…              token ids that end the generation (kept in the ids)\n"
        "  --ablate L.H,…           ablate heads at every step (--ablation zero|mean)\n"
        "  writes token_ids [n] (prompt + generated), generated [1], logprobs [n]\n"
        "  (log p of each id given those before it; NaN at 0), weights [L,H,n,n] of the\n"
        "  final sequence (see docs/generation.md)\n");
}

int runGenerate(const QStringList& arguments, QTextStream& out, QTextStream& err) {
    (void)out;
    QString error;
    const std::optional<GenerateRequest> r = parse(arguments, &error);
    if (!r) return fail(err, error + QStringLiteral("\nTry 'attnscope --help'."), kExitUsage);
    if (checkOutputFile(r->files, SceneInput{}, &error) != kExitOk)
        return fail(err, error, kExitOutput);
    attn::model::ModelFolder folder;
    try {
        folder = attn::model::open_folder(QFile::encodeName(r->files.model).toStdString());
    } catch (const std::bad_alloc&) {
        return fail(err, tr("%1: not enough memory to open the model").arg(r->files.model),
                    kExitResource);
    } catch (const std::exception& e) {
        return fail(err, errorText(e, r->files.model), kExitInput);
    }
    attn::gen::Generation g;
    try {
        const std::vector<std::int32_t> prompt = folder.tokenizer->encode(r->text.toStdString());
        g = attn::gen::generate(*folder.model, *folder.tokenizer, prompt, r->options);
    } catch (const std::bad_alloc&) {
        return fail(err, tr("not enough memory to generate; ask for fewer tokens"), kExitResource);
    } catch (const attn::ResourceError& e) {  // a tokenizer whose normaliser multiplies text
        return fail(err, errorText(e, r->files.model), kExitResource);
    } catch (const attn::ArgumentError& e) {  // options the model refuses (--ablate 9.9)
        return fail(err, errorText(e, r->files.model), kExitUsage);
    } catch (const std::exception& e) {
        return fail(err, errorText(e, r->files.model), kExitInput);
    }
    try {
        attn::io::write_npz(QFile::encodeName(r->files.output).toStdString(), members(g));
    } catch (const std::bad_alloc&) {
        return fail(err, tr("%1: not enough memory to write").arg(r->files.output), kExitOutput);
    } catch (const std::exception& e) {
        return fail(err, errorText(e, r->files.output), kExitOutput);
    }
    return kExitOk;
}

}  // namespace cli
