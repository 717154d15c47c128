// AttnScope — `attnscope patch`. GPL-3.0-or-later.
#include "cli/patch_command.hpp"

#include <QCommandLineParser>
#include <QFile>
#include <new>
#include <optional>
#include <span>

#include "attn/interventions/patching.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/models/families.hpp"
#include "attn/util/error.hpp"
#include "cli/cli_request.hpp"
#include "cli/cli_tr.hpp"
#include "cli/exit_codes.hpp"
#include "cli/intervention_options.hpp"
#include "cli/option_values.hpp"
#include "cli/output_check.hpp"
#include "model/error_text.hpp"

namespace cli {
namespace {

struct PatchRequest {
    QString model, clean, corrupt, output;
    std::int32_t answer = 0, wrong = 0;
    bool force = false;
    attn::model::Interventions interventions;
};

std::optional<PatchRequest> parsePatch(QStringList args, QString* error) {
    args.removeAt(1);
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const char* name :
         {"model", "clean", "corrupt", "answer", "wrong", "ablate", "ablate-mode", "knockout"})
        p.addOption({QString::fromLatin1(name), QString::fromLatin1(name), QStringLiteral("V")});
    p.addOption(
        {{QStringLiteral("o"), QStringLiteral("output")}, tr("output"), QStringLiteral("OUT")});
    p.addOption({QStringLiteral("force"), tr("replace a read-only output file")});
    if (!p.parse(args)) {
        *error = p.errorText();
        if (!p.unknownOptionNames().isEmpty() && error->endsWith(QLatin1Char('.')))
            error->chop(1);  // Qt's sentence goes on below
        // The one prompt of the other commands is two here.
        if (p.unknownOptionNames().contains(QStringLiteral("text")))
            *error += tr("; patch runs two prompts: give --clean TEXT and --corrupt TEXT");
        if (!p.unknownOptionNames().isEmpty())
            *error +=
                tr(" (patch takes --model, --clean, --corrupt, --answer, --wrong, "
                   "--ablate, --ablate-mode, --knockout, -o and --force)");
        return std::nullopt;
    }
    if (!p.positionalArguments().isEmpty()) {
        *error = tr("patch takes no input file (%1)")
                     .arg(p.positionalArguments().join(QLatin1Char(' ')));
        return std::nullopt;
    }
    if (const QString repeated = repeatedOption(p); !repeated.isEmpty()) {
        *error = repeated;
        return std::nullopt;
    }
    PatchRequest r;
    for (const char* name : {"model", "clean", "corrupt", "answer", "wrong", "output"})
        if (!p.isSet(QString::fromLatin1(name))) {
            *error = tr("patch needs --model DIR --clean TEXT --corrupt TEXT --answer ID "
                        "--wrong ID -o OUT (--%1 is missing)")
                         .arg(QLatin1StringView(name));
            return std::nullopt;
        }
    r.model = p.value(QStringLiteral("model"));
    r.clean = p.value(QStringLiteral("clean"));
    r.corrupt = p.value(QStringLiteral("corrupt"));
    r.output = p.value(QStringLiteral("output"));
    r.force = p.isSet(QStringLiteral("force"));
    if (r.model.isEmpty()) {
        *error = tr("--model: the folder name is empty");
        return std::nullopt;
    }
    if (!r.output.endsWith(QLatin1StringView(".npz"), Qt::CaseInsensitive)) {
        *error = tr("%1: patch writes .npz").arg(r.output);
        return std::nullopt;
    }
    for (const auto& [name, slot] :
         {std::pair{"answer", &r.answer}, std::pair{"wrong", &r.wrong}}) {
        const std::optional<qulonglong> v = decimalUnsigned(p.value(QString::fromLatin1(name)));
        if (!v || *v > 0x7fffffffULL) {
            *error = tr("--%1: '%2' is not a token id")
                         .arg(QLatin1StringView(name), p.value(QString::fromLatin1(name)));
            return std::nullopt;
        }
        *slot = std::int32_t(*v);
    }
    if (p.isSet(QStringLiteral("ablate"))) {
        const auto heads = parseHeads(p.value(QStringLiteral("ablate")));
        if (!heads) {
            *error = tr("--ablate: '%1' is not a list of heads such as 0.3,5.1")
                         .arg(p.value(QStringLiteral("ablate")));
            return std::nullopt;
        }
        r.interventions.ablated = *heads;
        const QString mode = p.value(QStringLiteral("ablate-mode")).toLower();
        if (mode == QLatin1StringView("mean"))
            r.interventions.ablation = attn::model::AblationMode::Mean;
        else if (!mode.isEmpty() && mode != QLatin1StringView("zero")) {
            *error = tr("--ablate-mode: '%1' is not zero or mean").arg(mode);
            return std::nullopt;
        }
    } else if (p.isSet(QStringLiteral("ablate-mode"))) {
        *error = tr("--ablate-mode applies to --ablate");
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("knockout"))) {
        const auto k = parseKnockouts(p.value(QStringLiteral("knockout")));
        if (!k) {
            *error = tr("--knockout: '%1' is not a list of edges such as 1.0:5>2")
                         .arg(p.value(QStringLiteral("knockout")));
            return std::nullopt;
        }
        r.interventions.knockouts = *k;
    }
    return r;
}

int patchCommand(const QStringList& arguments, QString* error) {
    const std::optional<PatchRequest> r = parsePatch(arguments, error);
    if (!r) return kExitUsage;
    // -o is checked as every command's is: never a link, a folder or one of the model's files.
    Request asRequest;
    asRequest.model = r->model;
    asRequest.output = r->output;
    asRequest.force = r->force;
    if (const int code = checkOutputFile(asRequest, SceneInput{}, error); code != kExitOk)
        return code;
    attn::model::ModelFolder folder;
    try {
        folder = attn::model::open_folder(QFile::encodeName(r->model).toStdString());
    } catch (const std::bad_alloc&) {
        *error = tr("%1: not enough memory to open the model").arg(r->model);
        return kExitResource;
    } catch (const std::exception& e) {
        *error = errorText(e, r->model);
        return kExitInput;
    }
    attn::interv::PatchSpec spec;
    attn::interv::PatchResult result;
    try {
        spec.clean = folder.tokenizer->encode(r->clean.toStdString());
        spec.corrupt = folder.tokenizer->encode(r->corrupt.toStdString());
        for (const auto& [ids, what] :
             {std::pair{&spec.clean, tr("--clean")}, std::pair{&spec.corrupt, tr("--corrupt")}})
            if (const QString bad = knockoutOutside(r->interventions.knockouts, ids->size(), what);
                !bad.isEmpty()) {
                *error = bad;
                return kExitUsage;
            }
        spec.answer = r->answer;
        spec.wrong = r->wrong;
        spec.controls.interventions = r->interventions;
        result = attn::interv::patch(*folder.model, spec);
    } catch (const std::bad_alloc&) {
        *error = tr("not enough memory for the patched runs; use shorter prompts");
        return kExitResource;
    } catch (const attn::ResourceError& e) {  // a tokenizer whose normaliser multiplies text
        *error = errorText(e, r->model);
        return kExitResource;
    } catch (const attn::ArgumentError& e) {
        *error = errorText(e, r->model);
        return kExitUsage;
    }
    try {
        const auto matrix = [](const attn::Matrix& m) {
            const std::uint64_t shape[] = {std::uint64_t(m.rows()), std::uint64_t(m.cols())};
            return attn::io::npy_bytes(std::span<const float>(m.data(), std::size_t(m.size())),
                                       shape);
        };
        const auto scalar = [](double v) {
            const float value[] = {float(v)};
            const std::uint64_t shape[] = {1};
            return attn::io::npy_bytes(value, shape);
        };
        attn::io::write_npz(QFile::encodeName(r->output).toStdString(),
                            {{"head_patch", matrix(result.heads)},
                             {"resid_patch", matrix(result.resid)},
                             {"clean_ids", attn::io::npy_i4_bytes(spec.clean)},
                             {"corrupt_ids", attn::io::npy_i4_bytes(spec.corrupt)},
                             {"clean_diff", scalar(result.clean_diff)},
                             {"corrupt_diff", scalar(result.corrupt_diff)}});
    } catch (const std::exception& e) {
        *error = errorText(e, r->output);
        return dynamic_cast<const attn::ResourceError*>(&e) ? kExitResource : kExitOutput;
    }
    return kExitOk;
}

}  // namespace

int runPatch(const QStringList& arguments, QTextStream& err) {
    QString error;
    const int code = patchCommand(arguments, &error);
    if (code != kExitOk) {
        err << "attnscope: " << error << "\n";
        err.flush();
    }
    return code;
}

}  // namespace cli
