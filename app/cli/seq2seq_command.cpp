// AttnScope — `attnscope compute --target` and `attnscope translate`. GPL-3.0-or-later.
#include "cli/seq2seq_command.hpp"

#include <QCommandLineParser>
#include <QFile>
#include <QTextStream>
#include <new>
#include <optional>
#include <span>

#include "attn/generate/translate.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/models/families.hpp"
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

/// What an encoder–decoder command line asks for, or a usage message.
struct Seq2SeqRequest {
    Request files;  ///< --model, -o and --force, as output_check reads them
    QString text, target;
    attn::gen::TranslateOptions options;
};

int failWith(QTextStream& err, const QString& message, int code) {
    err << "attnscope: " << message << "\n";
    err.flush();
    return code;
}

std::optional<Seq2SeqRequest> parseSeq2Seq(const QStringList& arguments, bool translate,
                                           QString* error) {
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    QStringList valued = {QStringLiteral("model"), QStringLiteral("text"),
                          QStringLiteral("ablate")};
    if (translate)
        valued << QStringLiteral("beam") << QStringLiteral("max-tokens")
               << QStringLiteral("length-penalty");
    else
        valued << QStringLiteral("target");
    for (const QString& name : valued)
        p.addOption({name, QString(), QStringLiteral("X")});
    p.addOption(
        {{QStringLiteral("o"), QStringLiteral("output")}, QString(), QStringLiteral("OUT")});
    for (const char* name : {"force", "scale", "no-scale"})
        p.addOption({QString::fromLatin1(name), QString()});
    QStringList args = arguments;
    args.removeAt(1);
    const QString command =
        translate ? QStringLiteral("translate") : QStringLiteral("compute --target");
    if (!p.parse(args)) {
        *error =
            tr("%1 (%2 takes --model, --text, %3 --scale/--no-scale, --ablate, -o and --force)")
                .arg(p.errorText(), command,
                     translate ? QStringLiteral("--beam, --max-tokens, --length-penalty,")
                               : QStringLiteral("--target,"));
        return std::nullopt;
    }
    if (const QString repeated = repeatedOption(p); !repeated.isEmpty()) {
        *error = repeated;
        return std::nullopt;
    }
    if (!p.positionalArguments().isEmpty()) {
        *error = tr("%1 takes no input file (%2)")
                     .arg(command, p.positionalArguments().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    Seq2SeqRequest r;
    r.files.model = p.value(QStringLiteral("model"));
    r.files.output = p.value(QStringLiteral("output"));
    r.files.force = p.isSet(QStringLiteral("force"));
    r.text = p.value(QStringLiteral("text"));
    r.target = translate ? QString() : p.value(QStringLiteral("target"));
    if (r.files.model.isEmpty() || r.text.isEmpty() || r.files.output.isEmpty()) {
        *error = translate ? tr("translate needs --model DIR, --text SRC and -o OUT.npz")
                           : tr("compute with an encoder–decoder needs --model DIR, --text SRC, "
                                "--target TGT and -o OUT.npz");
        return std::nullopt;
    }
    if (!translate && !p.isSet(QStringLiteral("target"))) {
        *error = tr("%1 is an encoder–decoder: compute needs --target TGT, the target sentence "
                    "(or run translate)")
                     .arg(r.files.model);
        return std::nullopt;
    }
    if (!translate && r.target.isEmpty()) {
        *error = tr("--target: the target sentence is empty");
        return std::nullopt;
    }
    if (!r.files.output.endsWith(QLatin1StringView(".npz"), Qt::CaseInsensitive)) {
        *error = tr("-o %1: %2 writes .npz").arg(r.files.output, command);
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("scale")) && p.isSet(QStringLiteral("no-scale"))) {
        *error = tr("--scale and --no-scale contradict");
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("ablate"))) {
        const QString bad =
            parseSeq2SeqHeads(p.value(QStringLiteral("ablate")), &r.options.controls.ablate);
        if (!bad.isEmpty()) {
            *error = tr("--ablate %1: expected encoder.L.H, decoder.L.H or cross.L.H").arg(bad);
            return std::nullopt;
        }
    }
    if (p.isSet(QStringLiteral("scale"))) r.options.controls.scale = true;
    if (p.isSet(QStringLiteral("no-scale"))) r.options.controls.scale = false;
    const auto integer = [&](const char* name, int max, int* out) {
        if (!translate || !p.isSet(QString::fromLatin1(name))) return true;
        const auto v = decimalUnsigned(p.value(QString::fromLatin1(name)));
        if (!v || *v < 1 || *v > qulonglong(max)) {
            *error = tr("--%1 %2: expected an integer from 1 to %3")
                         .arg(QLatin1StringView(name), p.value(QString::fromLatin1(name)))
                         .arg(max);
            return false;
        }
        *out = int(*v);
        return true;
    };
    if (!integer("beam", 64, &r.options.beam) ||
        !integer("max-tokens", 4096, &r.options.max_tokens))
        return std::nullopt;
    if (translate && p.isSet(QStringLiteral("length-penalty"))) {
        const auto a = decimalNumber(p.value(QStringLiteral("length-penalty")));
        if (!a || *a < 0 || *a > 10) {
            *error = tr("--length-penalty %1: expected a number from 0 to 10")
                         .arg(p.value(QStringLiteral("length-penalty")));
            return std::nullopt;
        }
        r.options.length_penalty = *a;
    }
    return r;
}

/// [layer][head] matrices of one shape as a float32 [L,H,rows,cols] .npy.
std::vector<std::byte> layerWeightsNpy(const attn::model::LayerWeights& w, std::uint64_t rows,
                                       std::uint64_t cols) {
    const std::uint64_t layers = w.size(), heads = layers ? w[0].size() : 0;
    std::vector<float> values;
    values.reserve(layers * heads * rows * cols);
    for (const auto& layer : w)
        for (const attn::Matrix& m : layer)
            values.insert(values.end(), m.data(), m.data() + m.size());
    const std::uint64_t shape[] = {layers, heads, rows, cols};
    return attn::io::npy_bytes(values, shape);
}

/// The arrays of a teacher-forced run R (see seq2seqHelp).
attn::io::NpzMembers runMembers(const attn::model::Seq2SeqRun& r, bool logits) {
    const std::uint64_t ns = r.source.size(), nt = r.target.size();
    attn::io::NpzMembers m = {{"source_ids", attn::io::npy_i4_bytes(r.source)},
                              {"target_ids", attn::io::npy_i4_bytes(r.target)},
                              {"encoder_weights", layerWeightsNpy(r.encoder, ns, ns)},
                              {"decoder_weights", layerWeightsNpy(r.decoder, nt, nt)},
                              {"cross_weights", layerWeightsNpy(r.cross, nt, ns)}};
    if (logits) {
        const std::uint64_t shape[] = {nt, std::uint64_t(r.logits.cols())};
        m.push_back(
            {"logits",
             attn::io::npy_bytes(
                 std::span<const float>(r.logits.data(), std::size_t(r.logits.size())), shape)});
    }
    return m;
}

/// Opens the request's folder, runs BODY on it and writes the members it returns.
template <class Body>
int runOnFolder(const Seq2SeqRequest& r, QTextStream& err, Body body) {
    QString error;
    if (checkOutputFile(r.files, SceneInput{}, &error) != kExitOk)
        return failWith(err, error, kExitOutput);
    attn::model::Seq2SeqFolder folder;
    try {
        folder = attn::model::open_seq2seq(QFile::encodeName(r.files.model).toStdString());
    } catch (const std::bad_alloc&) {
        return failWith(err, tr("%1: not enough memory to open the model").arg(r.files.model),
                        kExitResource);
    } catch (const std::exception& e) {
        return failWith(err, errorText(e, r.files.model), kExitInput);
    }
    attn::io::NpzMembers members;
    try {
        members = body(folder);
    } catch (const std::bad_alloc&) {
        return failWith(err, tr("not enough memory for this run; use shorter sentences"),
                        kExitResource);
    } catch (const attn::ArgumentError& e) {  // a sentence past the model's positions
        return failWith(err, errorText(e, r.files.model), kExitUsage);
    } catch (const std::exception& e) {
        return failWith(err, errorText(e, r.files.model), kExitInput);
    }
    try {
        attn::io::write_npz(QFile::encodeName(r.files.output).toStdString(), members);
    } catch (const std::bad_alloc&) {
        return failWith(err, tr("%1: not enough memory to write").arg(r.files.output), kExitOutput);
    } catch (const std::exception& e) {
        return failWith(err, errorText(e, r.files.output), kExitOutput);
    }
    return kExitOk;
}

}  // namespace

bool isSeq2SeqCompute(const QStringList& arguments) {
    for (qsizetype i = 2; i < arguments.size(); ++i) {
        const QString& a = arguments.at(i);
        if (a == QLatin1StringView("--target") || a.startsWith(QLatin1StringView("--target=")))
            return true;
        if (a == QLatin1StringView("--model") && i + 1 < arguments.size()) {
            try {
                if (attn::model::is_seq2seq_folder(
                        QFile::encodeName(arguments.at(i + 1)).toStdString()))
                    return true;
            } catch (const std::exception&) {
                // No readable config.json: the decoder-only path names the problem.
            }
        }
    }
    return false;
}

int runSeq2SeqCompute(const QStringList& arguments, QTextStream& err) {
    QString error;
    const std::optional<Seq2SeqRequest> r = parseSeq2Seq(arguments, false, &error);
    if (!r) return failWith(err, error + QStringLiteral("\nTry 'attnscope --help'."), kExitUsage);
    return runOnFolder(*r, err, [&](const attn::model::Seq2SeqFolder& f) {
        const attn::model::Seq2SeqRun run = attn::model::teacher_forced(
            *f.model, f.source->encode(r->text.toStdString()),
            attn::decoder_inputs(f, r->target.toStdString()), r->options.controls);
        return runMembers(run, true);
    });
}

int runTranslate(const QStringList& arguments, QTextStream& err) {
    QString error;
    const std::optional<Seq2SeqRequest> r = parseSeq2Seq(arguments, true, &error);
    if (!r) return failWith(err, error + QStringLiteral("\nTry 'attnscope --help'."), kExitUsage);
    return runOnFolder(*r, err, [&](const attn::model::Seq2SeqFolder& f) {
        const std::vector<std::int32_t> source = f.source->encode(r->text.toStdString());
        // The weights of the search's own cached steps: no second, teacher-forced run.
        attn::gen::TranslateOptions options = r->options;
        options.weights = true;
        const attn::gen::Translation t = attn::gen::translate(*f.model, source, options);
        std::vector<std::int32_t> words;
        for (const std::int32_t id : t.output)
            if (!f.target->is_special(id)) words.push_back(id);
        attn::io::NpzMembers m = runMembers(t.run, false);
        m.insert(m.begin(), {"output_ids", attn::io::npy_i4_bytes(t.output)});
        // A 0-d unicode array: str(npz["text"]) is the sentence.
        m.push_back({"text", attn::io::npy_string_bytes({f.target->decode(words)},
                                                        std::span<const std::uint64_t>())});
        return m;
    });
}

QString seq2seqHelp() {
    return tr(
        "encoder–decoders (Marian, T5; see docs/seq2seq.md):\n"
        "  attnscope compute --model DIR --text SRC --target TGT [--scale|--no-scale] -o OUT.npz\n"
        "                           teacher-forced: source_ids [ns], target_ids [nt] (the start\n"
        "                           token, then TGT's ids), encoder_weights [Le,H,ns,ns],\n"
        "                           decoder_weights [Ld,H,nt,nt], cross_weights [Ld,H,nt,ns],\n"
        "                           logits [nt,vocab]\n"
        "  attnscope translate --model DIR --text SRC [--beam B] [--max-tokens N]\n"
        "                      [--length-penalty A] [--scale|--no-scale] -o OUT.npz\n"
        "                           greedy (B = 1, default) or beam search, at most N tokens\n"
        "                           (default 64), scored sum log p / len^A (default 1): writes\n"
        "                           output_ids, text and the run's arrays on the output\n"
        "  --scale, --no-scale      scores × 1/sqrt(d_k) on or off (default: the model's own;\n"
        "                           Marian scales, T5 does not)\n"
        "  --ablate PART.L.H,…      zero those heads' outputs (PART encoder, decoder, cross)\n"
        "  attnscope render --model DIR --text SRC [--target TGT] --view alignment -o OUT.png\n"
        "                           the cross-attention of the run (no --target: of the\n"
        "                           greedy translation); --view heads|model with --component\n"
        "                           Encoder|Decoder|Cross (default Cross) and --layer L\n");
}

}  // namespace cli
