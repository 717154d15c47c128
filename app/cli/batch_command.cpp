// AttnScope — `attnscope batch`. GPL-3.0-or-later.
#include "cli/batch_command.hpp"

#include <unistd.h>

#include <QCommandLineParser>
#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <new>
#include <optional>

#include "attn/attribution/token_attribution.hpp"
#include "attn/models/model.hpp"
#include "attn/util/error.hpp"
#include "cli/batch_analyses.hpp"
#include "cli/batch_journal.hpp"
#include "cli/batch_progress.hpp"
#include "cli/batch_source.hpp"
#include "cli/cli_tr.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_values.hpp"
#include "cli/output_check.hpp"
#include "cli/scene_input.hpp"
#include "model/error_text.hpp"

namespace cli {
namespace {

struct BatchRequest {
    QString model, dataset, output;
    batch::Analysis analysis = batch::Analysis::Patch;
    bool skip = false;  ///< --on-error skip
    std::int64_t shardK = 0, shardN = 1;
    batch::ProgressLine::Mode progress = batch::ProgressLine::Mode::Quiet;
    attn::model::AblationMode ablation = attn::model::AblationMode::Zero;
    batch::AttributeSettings attribute;
    QStringList methods;  ///< attribute's --methods as given (checked against the model later)
    bool force = false;
};

/// The options that change what is computed or kept, as text (hashed into the journal).
std::string optionsText(const BatchRequest& r) {
    std::string s = std::string("analysis=") + batch::analysisName(r.analysis);
    if (r.analysis == batch::Analysis::Ablate)
        s += r.ablation == attn::model::AblationMode::Mean ? " ablate-mode=mean"
                                                           : " ablate-mode=zero";
    if (r.analysis == batch::Analysis::Attribute) {
        s += ' ';  // appended apart: GCC 12 warns falsely on " " + string here (stringop-overflow)
        s += batch::attributeOptions(r.attribute);
    }
    return s + (r.skip ? " on-error=skip" : " on-error=stop");
}

/// Attribute's options of P into R: false with *ERROR when one is not a value it takes.
bool parseAttribute(const QCommandLineParser& p, BatchRequest& r, QString* error) {
    for (const char* name : {"methods", "steps", "faithfulness"})
        if (p.isSet(QString::fromLatin1(name)) && r.analysis != batch::Analysis::Attribute) {
            *error = tr("--%1 applies to --analysis attribute").arg(QLatin1StringView(name));
            return false;
        }
    const auto number = [&](const char* name, int low, int high, int* out) {
        if (!p.isSet(QString::fromLatin1(name))) return true;
        const QString text = p.value(QString::fromLatin1(name));
        const auto v = decimalUnsigned(text);
        if (!v || *v < qulonglong(low) || *v > qulonglong(high)) {
            *error = tr("--%1: '%2' is not a whole number from %3 to %4")
                         .arg(QLatin1StringView(name), text)
                         .arg(low)
                         .arg(high);
            return false;
        }
        *out = int(*v);
        return true;
    };
    if (!number("steps", 1, 1 << 16, &r.attribute.steps) ||
        !number("faithfulness", 0, 1 << 20, &r.attribute.faithfulness))
        return false;
    if (!p.isSet(QStringLiteral("methods"))) return true;
    const QString list = p.value(QStringLiteral("methods")).trimmed();
    if (list == QLatin1StringView("all")) return true;
    for (const QString& item : list.split(QLatin1Char(','))) {
        const std::string m = item.trimmed().toStdString();
        const auto& tokens = batch::tokenMethods();
        if (std::find(tokens.begin(), tokens.end(), m) != tokens.end()) {
            r.methods << item.trimmed();
            continue;
        }
        if (const std::string why = attn::attrib::unavailable(m); !why.empty())
            *error = tr("--methods: %1").arg(QString::fromStdString(why));
        else
            *error = tr("--methods: %1 gives a map per layer (or head), not a score per token; "
                        "a batch keeps token scores (%2): run attnscope attribute on one example "
                        "for the maps")
                         .arg(item.trimmed(), QStringLiteral("saliency, input_x_gradient, "
                                                             "integrated_gradients, alti_rollout, "
                                                             "attention_flow, rollout"));
        return false;
    }
    return true;
}

/// R's attribute methods, each one MODEL computes (by default every token-level one it does):
/// false with *ERROR naming a requested one it cannot.
bool settleMethods(BatchRequest& r, const attn::model::Model& model, QString* error) {
    if (r.analysis != batch::Analysis::Attribute) return true;
    for (const std::string& m : batch::tokenMethods()) {
        const bool asked = r.methods.contains(QString::fromStdString(m));
        const std::string why = attn::attrib::unavailable_for(model, m);
        if (asked && !why.empty()) {
            *error = tr("--methods: %1").arg(QString::fromStdString(why));
            return false;
        }
        if (why.empty() && (asked || r.methods.isEmpty())) r.attribute.methods.push_back(m);
    }
    return true;
}

std::optional<BatchRequest> parseBatch(QStringList args, QString* error) {
    args.removeAt(1);
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const char* name : {"model", "dataset", "analysis", "on-error", "shard", "progress",
                             "ablate-mode", "methods", "steps", "faithfulness"})
        p.addOption({QString::fromLatin1(name), QString::fromLatin1(name), QStringLiteral("V")});
    p.addOption(
        {{QStringLiteral("o"), QStringLiteral("output")}, tr("output"), QStringLiteral("OUT")});
    p.addOption({QStringLiteral("force"), tr("replace a read-only output file")});
    if (!p.parse(args)) {
        *error =
            p.errorText() + tr(" (batch takes --model, --dataset, --analysis, --on-error, --shard, "
                               "--progress, --ablate-mode, --methods, --steps, --faithfulness, "
                               "-o and --force)");
        return std::nullopt;
    }
    if (!p.positionalArguments().isEmpty()) {
        *error = tr("batch takes no input file (%1); give the dataset as --dataset FILE")
                     .arg(p.positionalArguments().join(QLatin1Char(' ')));
        return std::nullopt;
    }
    if (const QString repeated = repeatedOption(p); !repeated.isEmpty()) {
        *error = repeated;
        return std::nullopt;
    }
    for (const char* name : {"model", "dataset", "analysis", "output"})
        if (!p.isSet(QString::fromLatin1(name)) || p.value(QString::fromLatin1(name)).isEmpty()) {
            *error = tr("batch needs --model DIR --dataset FILE.jsonl --analysis NAME -o OUT.npz "
                        "(--%1 is missing)")
                         .arg(QLatin1StringView(name));
            return std::nullopt;
        }
    BatchRequest r;
    r.model = p.value(QStringLiteral("model"));
    r.dataset = p.value(QStringLiteral("dataset"));
    r.output = p.value(QStringLiteral("output"));
    r.force = p.isSet(QStringLiteral("force"));
    const QString analysis = p.value(QStringLiteral("analysis"));
    const auto a = batch::analysisNamed(analysis.toStdString());
    if (!a) {
        *error =
            tr("--analysis: '%1' is not patch, ablate, census, compute or attribute").arg(analysis);
        return std::nullopt;
    }
    r.analysis = *a;
    if (!parseAttribute(p, r, error)) return std::nullopt;
    if (!r.output.endsWith(QLatin1StringView(".npz"), Qt::CaseInsensitive)) {
        *error = tr("%1: batch writes .npz").arg(r.output);
        return std::nullopt;
    }
    const QString onError = p.value(QStringLiteral("on-error"));
    if (!onError.isEmpty() && onError != QLatin1StringView("skip") &&
        onError != QLatin1StringView("stop")) {
        *error = tr("--on-error: '%1' is not skip or stop").arg(onError);
        return std::nullopt;
    }
    r.skip = onError == QLatin1StringView("skip");
    if (p.isSet(QStringLiteral("shard"))) {
        const QString s = p.value(QStringLiteral("shard"));
        const QStringList kn = s.split(QLatin1Char('/'));
        const auto k = kn.size() == 2 ? decimalUnsigned(kn[0]) : std::nullopt;
        const auto n = kn.size() == 2 ? decimalUnsigned(kn[1]) : std::nullopt;
        if (!k || !n || *n == 0 || *k >= *n || *n > 1000000) {
            *error = tr("--shard: '%1' is not K/N with 0 ≤ K < N (such as 0/4)").arg(s);
            return std::nullopt;
        }
        r.shardK = std::int64_t(*k), r.shardN = std::int64_t(*n);
    }
    const QString progress = p.value(QStringLiteral("progress"));
    if (progress == QLatin1StringView("json"))
        r.progress = batch::ProgressLine::Mode::Json;
    else if (!progress.isEmpty()) {
        *error =
            tr("--progress: '%1' is not json (without it, a terminal shows a line)").arg(progress);
        return std::nullopt;
    } else if (::isatty(STDERR_FILENO))
        r.progress = batch::ProgressLine::Mode::Terminal;
    if (p.isSet(QStringLiteral("ablate-mode"))) {
        const QString mode = p.value(QStringLiteral("ablate-mode"));
        if (r.analysis != batch::Analysis::Ablate) {
            *error = tr("--ablate-mode applies to --analysis ablate");
            return std::nullopt;
        }
        if (mode == QLatin1StringView("mean"))
            r.ablation = attn::model::AblationMode::Mean;
        else if (mode != QLatin1StringView("zero")) {
            *error = tr("--ablate-mode: '%1' is not zero or mean").arg(mode);
            return std::nullopt;
        }
    }
    return r;
}

/// What differs between the journal's header and this run's, for the refusal.
QString headerDifference(const std::string& was, const std::string& now) {
    const QStringList a = QString::fromStdString(was).split(QLatin1Char('\n'));
    const QStringList b = QString::fromStdString(now).split(QLatin1Char('\n'));
    static const char* const kWhat[] = {"the options", "the model", "the dataset", "the options",
                                        "the shard"};
    for (int i = 0; i < std::min(a.size(), b.size()) && i < 5; ++i)
        if (a[i] != b[i]) return tr(kWhat[i]) + QStringLiteral(" (%1, now %2)").arg(a[i], b[i]);
    return tr("its format");
}

int batchCommand(const QStringList& arguments, QString* error) {
    std::optional<BatchRequest> r = parseBatch(arguments, error);
    if (!r) return kExitUsage;
    Request asRequest;
    asRequest.command = Request::Command::Compute;
    asRequest.model = r->model;
    asRequest.file = r->dataset;  // never written over
    asRequest.output = r->output;
    asRequest.force = r->force;
    asRequest.sceneArgs = QStringList{arguments.at(0)};  // no scene option: the model's own run
    if (const int code = checkOutputFile(asRequest, SceneInput{}, error); code != kExitOk)
        return code;
    batch::Source source;
    if (const int code =
            batch::readSource(r->model, r->dataset, r->shardK, r->shardN, &source, error);
        code != kExitOk)
        return code;
    asRequest.file.clear();
    SceneInput input;
    if (const int code = prepareScene(asRequest, &input, error); code != kExitOk) return code;
    if (!input.spec.is_model()) {  // an encoder–decoder's run is shown as loaded data
        *error = tr("%1 is an encoder–decoder (Marian, T5): batch runs decoder-only and BERT "
                    "models; run its prompts one by one with compute --target, patch --target "
                    "or attribute --target")
                     .arg(r->model);
        return kExitUsage;
    }
    if (!settleMethods(*r, *input.spec.model->model, error)) return kExitUsage;
    batch::Header header;
    header.analysis = batch::analysisName(r->analysis);
    header.model = QFileInfo(r->model).absoluteFilePath().toStdString();
    header.dataset = QFileInfo(r->dataset).absoluteFilePath().toStdString();
    header.options = optionsText(*r);
    header.hashes = {source.modelHash, source.datasetHash,
                     QCryptographicHash::hash(QByteArray::fromStdString(header.options),
                                              QCryptographicHash::Sha256)
                         .toHex()
                         .toStdString()};
    header.shardK = r->shardK, header.shardN = r->shardN;
    const std::string journalHeader = "H" + header.options + "\n" + header.hashes[0] + "\n" +
                                      header.hashes[1] + "\n" + header.hashes[2] + "\n" +
                                      std::to_string(r->shardK) + "/" + std::to_string(r->shardN);
    const attn::model::ModelInfo& info = input.spec.model->model->info();
    const std::vector<batch::Field> fields =
        batch::schema(r->analysis, info.layers, info.heads, r->attribute);
    const std::string out = QFile::encodeName(r->output).toStdString();
    std::optional<batch::Journal> journal;
    std::vector<batch::Entry> entries;
    try {
        journal.emplace(out + ".journal");
        if (!journal->records().empty() && journal->records()[0].starts_with('H') &&
            journal->records()[0] != journalHeader) {
            *error = tr("%1: this output's journal is of another run: %2 changed; remove the "
                        "journal to start again, or write to another output")
                         .arg(QString::fromStdString(journal->path()),
                              headerDifference(journal->records()[0].substr(1),
                                               journalHeader.substr(1)));
            return kExitUsage;
        }
        if (journal->records().empty() || !journal->records()[0].starts_with('H')) {
            journal->clear();
            journal->append(journalHeader);
        }
        for (std::size_t i = 1; i < journal->records().size(); ++i) {
            std::optional<batch::Entry> e = batch::parseEntry(journal->records()[i], fields);
            if (!e || i - 1 >= source.lines.size() || e->line != source.lines[i - 1].number) {
                *error = tr("%1: record %2 is not the dataset's next line; remove the journal "
                            "to start again")
                             .arg(QString::fromStdString(journal->path()))
                             .arg(i);
                return kExitInput;
            }
            entries.push_back(std::move(*e));
        }
    } catch (const std::exception& e) {
        *error = errorText(e, r->output);
        return kExitOutput;
    }
    std::int64_t skipped = 0;
    for (const batch::Entry& e : entries)
        skipped += e.skipped ? 1 : 0;
    batch::ProgressLine progress(r->progress, std::int64_t(source.lines.size()),
                                 std::int64_t(entries.size()), skipped);
    batch::Runner runner;
    runner.analysis = r->analysis;
    runner.scene = input.spec;
    runner.ablation = r->ablation;
    runner.attribute = r->attribute;
    for (std::size_t i = entries.size(); i < source.lines.size(); ++i) {
        const batch::DatasetLine& line = source.lines[i];
        batch::Entry e;
        try {
            e = batch::runLine(runner, line.text, line.number);
        } catch (const std::bad_alloc&) {
            *error = tr("%1: line %2: not enough memory for this example")
                         .arg(r->dataset)
                         .arg(line.number);
            return kExitResource;
        } catch (const std::exception& x) {
            *error = tr("line %1: %2").arg(line.number).arg(errorText(x, r->dataset));
            return dynamic_cast<const attn::ResourceError*>(&x) ? kExitResource : kExitInput;
        }
        if (e.skipped && !r->skip) {
            *error = tr("%1: line %2: %3 (--on-error skip leaves such lines out)")
                         .arg(r->dataset)
                         .arg(line.number)
                         .arg(QString::fromStdString(e.reason));
            return kExitInput;
        }
        try {
            journal->append(batch::serialize(e));
        } catch (const std::exception& x) {
            *error = errorText(x, r->output);
            return kExitOutput;
        }
        progress.step(e.skipped);
        entries.push_back(std::move(e));
    }
    try {
        batch::writeReproducible(out, batch::assemble(header, r->analysis, fields, entries));
    } catch (const std::bad_alloc&) {
        *error = tr("%1: not enough memory to write the result").arg(r->output);
        return kExitResource;
    } catch (const std::exception& x) {
        *error = errorText(x, r->output);
        return dynamic_cast<const attn::ResourceError*>(&x) ? kExitResource : kExitOutput;
    }
    journal->remove();
    progress.finish(r->output);
    return kExitOk;
}

}  // namespace

QString batchHelp() {
    return tr(
        "batch options (attnscope batch --model DIR --dataset FILE.jsonl --analysis NAME\n"
        "-o OUT.npz; attnscope merge OUT_0.npz … -o OUT.npz joins shards; docs/datasets.md):\n"
        "  --analysis NAME          patch | ablate | census | compute | attribute over every line\n"
        "  --dataset FILE           JSON Lines: {\"clean\", \"corrupt\", \"answer\", \"wrong\"}\n"
        "                           (patch), {\"text\", \"answer\"} (ablate), {\"text\"}\n"
        "                           (census, compute; attribute: and \"answer\" if given)\n"
        "  --ablate-mode zero|mean  ablate: how each head is ablated (default zero)\n"
        "  --methods LIST           attribute: token-level methods (default every one the\n"
        "                           family computes); --steps M (32), --faithfulness K (8)\n"
        "  --on-error stop|skip     a bad line stops the run (default) or is listed and left out\n"
        "  --shard K/N              every N-th example from the K-th (K from 0)\n"
        "  --progress json          JSON lines on stderr (default: a line on a terminal)\n"
        "  writes per_example/<name> [E,…], aggregate/<name>_mean|_std, aggregate/count;\n"
        "  rerun after a kill, it resumes from OUT.npz.journal\n");
}

int runBatch(const QStringList& arguments, QTextStream& err) {
    QString error;
    const int code = batchCommand(arguments, &error);
    if (code != kExitOk) {
        err << "attnscope: " << error << "\n";
        err.flush();
    }
    return code;
}

}  // namespace cli
