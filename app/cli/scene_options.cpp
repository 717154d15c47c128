// AttnScope — command-line options that mirror the controls dock. GPL-3.0-or-later.
#include "cli/scene_options.hpp"
#include "cli/cli_tr.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"
#include "cli/option_values.hpp"

namespace cli {
namespace {

struct OptionDoc {
    const char* name;
    const char* value;  // null: a switch
    const char* help;
};

// One table drives both the parser and --help, so they cannot disagree.
constexpr OptionDoc kSceneOptions[] = {
    {"text", "SENTENCE", "sentence to tokenise instead of the default one"},
    {"cross-text", "SENTENCE", "keys from this sentence: cross-attention (\"\" = self)"},
    {"heads", "N", "number of heads h (must divide d_model)"},
    {"d-model", "N", "model width d_model"},
    {"kv-heads", "N", "key/value heads: 1 = MQA, a divisor of h = GQA (default h)"},
    {"scale", nullptr, "scale scores by 1/sqrt(d_k) (default)"},
    {"no-scale", nullptr, "do not scale scores"},
    {"dk", "D", "d_k used to scale loaded raw scores (default: from the file, else 64)"},
    {"mask", "KIND", "none | causal | anti-causal | padding | window | global"},
    {"window", "W", "radius of the window and global masks"},
    {"global", "I,J,...", "global token positions of the global mask"},
    {"pad", "I,J,...", "key positions hidden by the padding mask"},
    {"temperature", "T", "softmax temperature (0 = hard argmax)"},
    {"score", "KIND", "dot | scaled-dot | general | additive | rbf"},
    {"sigma", "S", "RBF bandwidth"},
    {"positional", "KIND", "sinusoidal | learned | none"},
    {"seed", "N", "seed of embeddings and projection weights"},
    {"merge-words", nullptr,
     "merge sub-word pieces (WordPiece ##, GPT-2 \u0120 or a leading space, SentencePiece "
     "\u2581) into words: keys summed, queries averaged"},
};

/// The longest key sequence --pad may name: n × n attention of more keys cannot be held, and a
/// model has fewer positions.
constexpr attn::Index kMaxPadKeys = attn::Index(1) << 24;

bool toIndex(const QString& text, attn::Index min, attn::Index* out) {
    const std::optional<qulonglong> v = decimalUnsigned(text);
    if (!v || *v < qulonglong(min) || *v > qulonglong(std::numeric_limits<attn::Index>::max()))
        return false;
    *out = static_cast<attn::Index>(*v);
    return true;
}

/// TEXT as a finite decimal number of at least MIN (above it when STRICT).
bool toNumber(const QString& text, double min, bool strict, float* out) {
    const std::optional<double> v = decimalNumber(text);
    if (!v || *v < min || (strict && *v == min) || !std::isfinite(float(*v))) return false;
    *out = float(*v);
    return true;
}

bool toIndexList(const QString& text, std::vector<attn::Index>* out) {
    out->clear();
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        attn::Index v = 0;
        if (!toIndex(part.trimmed(), 0, &v)) return false;
        out->push_back(v);
    }
    return true;
}

QString badValue(const char* option, const QString& value, const QString& expected) {
    return tr("--%1: '%2' is not %3").arg(QLatin1StringView(option), value, expected);
}

}  // namespace

void addSceneOptions(QCommandLineParser& parser) {
    for (const OptionDoc& o : kSceneOptions) {
        QCommandLineOption option(QString::fromLatin1(o.name), QString::fromUtf8(o.help));
        if (o.value) option.setValueName(QString::fromLatin1(o.value));
        parser.addOption(option);
    }
}

QStringList sceneOptionNames() {
    QStringList names;
    for (const OptionDoc& o : kSceneOptions)
        names << QString::fromLatin1(o.name);
    return names;
}

QString sceneOptionsHelp() {
    QString text;
    for (const OptionDoc& o : kSceneOptions) {
        QString head = QStringLiteral("  --") + QString::fromLatin1(o.name);
        if (o.value) head += QLatin1Char(' ') + QString::fromLatin1(o.value);
        text += head.leftJustified(26) + QLatin1Char(' ') + QString::fromUtf8(o.help) +
                QLatin1Char('\n');
    }
    return text;
}

QString applySceneOptions(const QCommandLineParser& p, attn::SceneSpec& spec) {
    auto has = [&](const char* name) { return p.isSet(QString::fromLatin1(name)); };
    auto value = [&](const char* name) { return p.value(QString::fromLatin1(name)); };
    try {
        if (has("text")) {
            spec.text = value("text").toStdString();
            spec.tokens.clear();
            spec.embeddings.reset();
            if (spec.is_loaded()) spec.set_synthetic();  // a model runs on the new text
        }
        if (has("cross-text")) {
            spec.cross_text = value("cross-text").toStdString();
            if (spec.is_loaded()) spec.set_synthetic();
        }
        if (has("heads") && !toIndex(value("heads"), 1, &spec.heads))
            return badValue("heads", value("heads"), tr("a positive integer"));
        if (has("d-model") && !toIndex(value("d-model"), 1, &spec.d_model))
            return badValue("d-model", value("d-model"), tr("a positive integer"));
        if (has("kv-heads") && !toIndex(value("kv-heads"), 0, &spec.kv_heads))
            return badValue("kv-heads", value("kv-heads"), tr("a non-negative integer"));
        if (has("scale") && has("no-scale")) return tr("--scale and --no-scale contradict");
        if (has("scale")) spec.scale = true;
        if (has("no-scale")) spec.scale = false;
        if (has("dk")) {
            float dk = 0;
            if (!toNumber(value("dk"), 0, true, &dk))
                return badValue("dk", value("dk"), tr("a positive number"));
            spec.data_dk = dk;
        }
        if (has("mask")) spec.mask.kind = attn::mask_kind_from_string(value("mask").toStdString());
        if (has("window") && !toIndex(value("window"), 0, &spec.mask.window))
            return badValue("window", value("window"), tr("a non-negative integer"));
        if (has("global") && !toIndexList(value("global"), &spec.mask.global))
            return badValue("global", value("global"), tr("a list of positions like 0,5"));
        if (has("pad")) {
            std::vector<attn::Index> hidden;
            if (!toIndexList(value("pad"), &hidden))
                return badValue("pad", value("pad"), tr("a list of positions like 7,8"));
            spec.mask.key_valid.clear();
            // The flags reach the largest position, and every copy of the scene holds them:
            // a position past any sequence is refused before they are allocated (the scene's
            // own length is checked once it is known, see prepareScene).
            const attn::Index last =
                hidden.empty() ? 0 : *std::max_element(hidden.begin(), hidden.end());
            attn::require_memory(double(last) / 8 + 1,
                                 "--pad position " + std::to_string(last) + " (a mask of " +
                                     std::to_string(last + 1) + " keys)",
                                 "give positions inside the sentence");
            if (last >= kMaxPadKeys)
                return tr("--pad: position %1 is past the %2 keys any scene may hold; give "
                          "positions inside the sentence")
                    .arg(last)
                    .arg(kMaxPadKeys);
            for (attn::Index k : hidden) {
                if (spec.mask.key_valid.size() <= static_cast<std::size_t>(k))
                    spec.mask.key_valid.resize(static_cast<std::size_t>(k) + 1, true);
                spec.mask.key_valid[static_cast<std::size_t>(k)] = false;
            }
        }
        if (has("temperature")) {
            float t = 0;
            if (!toNumber(value("temperature"), 0, false, &t))
                return badValue("temperature", value("temperature"), tr("a number ≥ 0"));
            spec.temperature = t;
        }
        if (has("score")) {
            const QString s = value("score");
            spec.score = attn::score_kind_from_string(s.toStdString());
            if (s == QLatin1StringView("scaled-dot")) spec.scale = true;
        }
        if (has("sigma")) {
            float s = 0;
            if (!toNumber(value("sigma"), 0, true, &s))
                return badValue("sigma", value("sigma"), tr("a positive number"));
            spec.sigma = s;
        }
        if (has("positional"))
            spec.positional = attn::positional_kind_from_string(value("positional").toStdString());
        if (has("seed")) {
            const std::optional<qulonglong> s = decimalUnsigned(value("seed"));
            if (!s) return badValue("seed", value("seed"), tr("a non-negative integer"));
            spec.seed = *s;
        }
        if (has("merge-words")) spec.merge_words = true;
    } catch (const attn::ResourceError&) {
        throw;  // more memory than the budget: exit 4, not a usage error
    } catch (const attn::Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace cli
