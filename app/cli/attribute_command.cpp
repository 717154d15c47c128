// AttnScope — `attnscope attribute`. GPL-3.0-or-later.
#include "cli/attribute_command.hpp"

#include <QFile>
#include <QTextStream>
#include <cstdio>
#include <limits>
#include <new>
#include <span>
#include <string_view>

#include "attn/attribution/token_attribution.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/models/run_inputs.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/util/error.hpp"
#include "cli/cli_tr.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_values.hpp"
#include "cli/output_check.hpp"
#include "cli/scene_input.hpp"
#include "cli/seq2seq_attribute_command.hpp"
#include "model/error_text.hpp"

namespace cli {
namespace {

constexpr const char* kAttributeOptions[] = {"position", "target", "methods", "steps",
                                             "faithfulness"};
/// Options of render and compute that mean nothing to attribute.
constexpr const char* kNotAttribute[] = {"view",      "layer", "head", "query",
                                         "component", "size",  "dpi",  "colormap"};

std::optional<int> wholeNumber(const QString& text, int max) {
    const std::optional<qulonglong> v = decimalUnsigned(text);
    if (!v || *v > qulonglong(max)) return std::nullopt;
    return int(*v);
}

}  // namespace

void addAttributeOptions(QCommandLineParser& p) {
    p.addOption({QStringLiteral("position"), tr("explained position"), QStringLiteral("P")});
    p.addOption({QStringLiteral("target"), tr("explained token id"), QStringLiteral("ID")});
    p.addOption({QStringLiteral("methods"), tr("attribution methods"), QStringLiteral("LIST")});
    p.addOption({QStringLiteral("steps"), tr("integrated gradients' steps"), QStringLiteral("M")});
    p.addOption(
        {QStringLiteral("faithfulness"), tr("erasure curves to K tokens"), QStringLiteral("K")});
}

QString parseAttributeOptions(const QCommandLineParser& p, Request& r) {
    const bool attribute = r.command == Request::Command::Attribute;
    // render --target is an encoder–decoder's target sentence (parseInterventionOptions).
    const bool render = r.command == Request::Command::Render;
    for (const char* name : kAttributeOptions)
        if (p.isSet(QString::fromLatin1(name)) && !attribute &&
            !(render && std::string_view(name) == "target"))
            return tr("--%1 belongs to attribute").arg(QLatin1StringView(name));
    if (!attribute) return {};
    for (const char* name : kNotAttribute)
        if (p.isSet(QString::fromLatin1(name)))
            return tr("--%1 does not apply to attribute").arg(QLatin1StringView(name));
    if (r.model.isEmpty()) return tr("attribute needs --model DIR (and --text T)");
    if (!r.output.endsWith(QLatin1StringView(".npz"), Qt::CaseInsensitive))
        return tr("%1: attribute writes .npz").arg(r.output);
    constexpr int kMax = std::numeric_limits<int>::max();
    if (p.isSet(QStringLiteral("position"))) {
        const auto v = wholeNumber(p.value(QStringLiteral("position")), kMax);
        if (!v)
            return tr("--position: '%1' is not a position (from 0)")
                .arg(p.value(QStringLiteral("position")));
        r.attribution.position = *v;
    }
    if (p.isSet(QStringLiteral("target"))) {
        const auto v = wholeNumber(p.value(QStringLiteral("target")), kMax);
        if (!v)
            return tr("--target: '%1' is not a token id").arg(p.value(QStringLiteral("target")));
        r.attribution.target = *v;
    }
    if (p.isSet(QStringLiteral("steps"))) {
        const auto v = wholeNumber(p.value(QStringLiteral("steps")), 1 << 16);
        if (!v || *v < 1)
            return tr("--steps: '%1' is not a number of steps from 1 to 65536")
                .arg(p.value(QStringLiteral("steps")));
        r.attribution.steps = *v;
    }
    if (p.isSet(QStringLiteral("faithfulness"))) {
        const auto v = wholeNumber(p.value(QStringLiteral("faithfulness")), 1 << 20);
        if (!v)
            return tr("--faithfulness: '%1' is not a number of tokens")
                .arg(p.value(QStringLiteral("faithfulness")));
        r.attribution.faithfulness = *v;
    }
    const QString list = p.value(QStringLiteral("methods")).trimmed();
    if (p.isSet(QStringLiteral("methods")) && list != QLatin1StringView("all")) {
        for (const QString& item : list.split(QLatin1Char(','))) {
            const std::string name = item.trimmed().toStdString();
            if (const std::string why = attn::attrib::unavailable(name); !why.empty())
                return tr("--methods: %1").arg(QString::fromStdString(why));
            if (std::find(r.attribution.methods.begin(), r.attribution.methods.end(), name) ==
                r.attribution.methods.end())
                r.attribution.methods.push_back(name);
        }
    }
    return {};
}

int runAttribute(const Request& request, QString* error) {
    SceneInput input;
    if (const int code = prepareScene(request, &input, error); code != kExitOk) return code;
    if (const int code = checkOutputFile(request, input, error); code != kExitOk) return code;
    const attn::SceneSpec& spec = input.spec;
    const attn::model::ModelFolder& folder = *spec.model;
    const attn::model::ModelInfo& info = folder.model->info();
    attn::attrib::AttributionRequest ask = request.attribution;
    ask.controls = attn::model::run_controls(spec);
    attn::attrib::AttributionResult result;
    std::vector<std::int32_t> ids;
    try {
        bool more = false;
        ids = spec.run_ids(std::size_t(info.max_positions), &more);
        if (more) {
            *error = tr("--text has more than the model's %1 positions").arg(info.max_positions);
            return kExitUsage;
        }
        if (ids.empty()) {
            *error = tr("--text gives no tokens");
            return kExitUsage;
        }
        if (!ask.position)
            ask.position = attn::model::fill_mask_position(info, *folder.tokenizer, ids);
        result = attn::attrib::attribute_tokens(*folder.model, ids, ask);
    } catch (const std::bad_alloc&) {
        *error = tr("not enough memory for the attribution; use a shorter text");
        return kExitResource;
    } catch (const attn::ResourceError& e) {
        *error = errorText(e, request.model);
        return kExitResource;
    } catch (const attn::ArgumentError& e) {
        *error = errorText(e, request.model);
        return kExitUsage;
    }
    try {
        const auto scalar_i4 = [](std::int64_t v) {
            const std::int32_t value[] = {std::int32_t(v)};
            return attn::io::npy_i4_bytes(value);
        };
        const float logit[] = {float(result.logit)};
        const std::uint64_t one[] = {1};
        attn::io::NpzMembers members{{"token_ids", attn::io::npy_i4_bytes(ids)},
                                     {"position", scalar_i4(result.position)},
                                     {"target", scalar_i4(result.target)},
                                     {"logit", attn::io::npy_bytes(logit, one)}};
        for (const attn::attrib::NamedArray& a : result.arrays)
            members.push_back({a.name, attn::io::npy_bytes(a.values, a.shape)});
        if (!result.agreement_methods.empty())
            members.push_back(
                {"agreement_methods", attn::io::npy_string_bytes(result.agreement_methods)});
        attn::io::write_npz(QFile::encodeName(request.output).toStdString(), members);
    } catch (const std::exception& e) {
        *error = errorText(e, request.output);
        return dynamic_cast<const attn::ResourceError*>(&e) ? kExitResource : kExitOutput;
    }
    return kExitOk;
}

QString attributeHelp() {
    return tr("\nattribute (docs/attribution.md): what each token contributed to one prediction\n"
              "  attnscope attribute --model DIR --text T [--position P] [--target ID]\n"
              "        [--methods m1,m2,…|all] [--steps M] [--faithfulness K] -o OUT.npz\n"
              "  --position P             the explained position (default: the last; BERT: the\n"
              "                           first [MASK])\n"
              "  --target ID              the explained token (default: the argmax at P)\n"
              "  --methods LIST           saliency, input_x_gradient, integrated_gradients,\n"
              "                           attention_x_gradient, norm_based, value_zeroing, alti,\n"
              "                           alti_rollout, attention_flow, rollout (default, or all:\n"
              "                           every one the model's family has)\n"
              "  --steps M                integrated gradients' steps (default 32; ig_delta says\n"
              "                           how far their sum is from the logit's change)\n"
              "  --faithfulness K         faith_<method> [K+1]: the target's logit with the top k\n"
              "                           tokens' inputs zeroed, k = 0…K; agreement [M,M]\n"
              "                           (Kendall's tau-b) with agreement_methods [M]\n"
              "  Writes token_ids, position, target, logit and each method's array; the scene\n"
              "  options (--temperature, --mask, --layers…) and interventions apply to the "
              "run.\n") +
           seq2seqAttributeHelp();
}

}  // namespace cli
