// AttnScope — `attnscope compute --target` and `attnscope translate`. GPL-3.0-or-later.
#include "cli/seq2seq_command.hpp"

#include <QCommandLineParser>
#include <QFile>
#include <QTextStream>
#include <new>
#include <optional>
#include <span>

#include "attn/generate/translate.hpp"
#include "attn/interventions/seq2seq_lens.hpp"
#include "attn/interventions/seq2seq_patching.hpp"
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
#include "cli/seq2seq_request.hpp"
#include "model/error_text.hpp"
#include "model/seq2seq_run.hpp"

namespace cli {
namespace {

int failWith(QTextStream& err, const QString& message, int code) {
    err << "attnscope: " << message << "\n";
    err.flush();
    return code;
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

/// M as a float32 [rows, cols] .npy.
std::vector<std::byte> matrixNpy(const attn::Matrix& m) {
    const std::uint64_t shape[] = {std::uint64_t(m.rows()), std::uint64_t(m.cols())};
    return attn::io::npy_bytes(std::span<const float>(m.data(), std::size_t(m.size())), shape);
}

/// Throws ArgumentError for a knockout whose query or key is past the run's positions (it would
/// remove nothing): queries are the source's in the encoder, the target's elsewhere; keys the
/// source's in the encoder and cross-attention.
void checkKnockouts(const std::vector<attn::model::Knockout>& knockouts, std::size_t ns,
                    std::size_t nt) {
    using Part = attn::model::Component;
    for (const attn::model::Knockout& k : knockouts) {
        const std::size_t queries = k.site.component == Part::Encoder ? ns : nt,
                          keys = k.site.component == Part::Decoder ? nt : ns;
        if ((k.query < 0 || std::size_t(k.query) < queries) && std::size_t(k.key) < keys) continue;
        const bool query = k.query >= 0 && std::size_t(k.query) >= queries;
        throw attn::ArgumentError(
            "--knockout " + seq2seqHeadsText({k.site}).toStdString() + ": " +
            (query ? "query " + std::to_string(k.query) + " is past the " + std::to_string(queries)
                   : "key " + std::to_string(k.key) + " is past the " + std::to_string(keys)) +
            " positions it can see, so it would remove nothing");
    }
}

/// The logit lens at RUN's last target position: [decoder layers + 1, vocab].
std::vector<std::byte> lensMember(const attn::model::Seq2SeqModel& model,
                                  const attn::model::Seq2SeqRun& run,
                                  const attn::gen::TranslateOptions& options) {
    const std::vector<attn::Matrix> lens =
        attn::interv::seq2seq_lens_logits(model, run.source, run.target, options.controls);
    attn::Matrix last(attn::Index(lens.size()), run.logits.cols());
    for (std::size_t l = 0; l < lens.size(); ++l)
        last.row(attn::Index(l)) = lens[l].row(lens[l].rows() - 1);
    return matrixNpy(last);
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
    const std::optional<Seq2SeqRequest> r =
        parseSeq2Seq(arguments, Seq2SeqCommand::Compute, &error);
    if (!r) return failWith(err, error + QStringLiteral("\nTry 'attnscope --help'."), kExitUsage);
    return runOnFolder(*r, err, [&](const attn::model::Seq2SeqFolder& f) {
        const std::vector<std::int32_t> source = f.source->encode(r->text.toStdString()),
                                        target = attn::decoder_inputs(f, r->target.toStdString());
        checkKnockouts(r->options.controls.knockouts, source.size(), target.size());
        const attn::model::Seq2SeqRun run =
            attn::model::teacher_forced(*f.model, source, target, r->options.controls);
        attn::io::NpzMembers m = runMembers(run, true);
        if (r->logitLens) m.push_back({"lens_logits", lensMember(*f.model, run, r->options)});
        return m;
    });
}

int runTranslate(const QStringList& arguments, QTextStream& err) {
    QString error;
    const std::optional<Seq2SeqRequest> r =
        parseSeq2Seq(arguments, Seq2SeqCommand::Translate, &error);
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

int runSeq2SeqPatch(const QStringList& arguments, QTextStream& err) {
    QString error;
    const std::optional<Seq2SeqRequest> r = parseSeq2Seq(arguments, Seq2SeqCommand::Patch, &error);
    if (!r) return failWith(err, error + QStringLiteral("\nTry 'attnscope --help'."), kExitUsage);
    return runOnFolder(*r, err, [&](const attn::model::Seq2SeqFolder& f) {
        attn::interv::Seq2SeqPatchSpec spec;
        spec.clean_source = f.source->encode(r->text.toStdString());
        spec.corrupt_source =
            r->corrupt.isEmpty() ? spec.clean_source : f.source->encode(r->corrupt.toStdString());
        spec.clean_target = attn::decoder_inputs(f, r->target.toStdString());
        spec.corrupt_target = r->corruptTarget.isEmpty()
                                  ? spec.clean_target
                                  : attn::decoder_inputs(f, r->corruptTarget.toStdString());
        spec.answer = r->answer;
        spec.wrong = r->wrong;
        spec.controls = r->options.controls;
        for (const auto& [s, t] : {std::pair{&spec.clean_source, &spec.clean_target},
                                   std::pair{&spec.corrupt_source, &spec.corrupt_target}})
            checkKnockouts(spec.controls.knockouts, s->size(), t->size());
        const attn::interv::Seq2SeqPatchResult result = attn::interv::seq2seq_patch(*f.model, spec);
        const auto scalar = [](double v) {
            const float value[] = {float(v)};
            const std::uint64_t shape[] = {1};
            return attn::io::npy_bytes(value, shape);
        };
        return attn::io::NpzMembers{
            {"encoder_head_patch", matrixNpy(result.encoder)},
            {"decoder_head_patch", matrixNpy(result.decoder)},
            {"cross_head_patch", matrixNpy(result.cross)},
            {"clean_ids", attn::io::npy_i4_bytes(spec.clean_source)},
            {"corrupt_ids", attn::io::npy_i4_bytes(spec.corrupt_source)},
            {"target_ids", attn::io::npy_i4_bytes(spec.clean_target)},
            {"corrupt_target_ids", attn::io::npy_i4_bytes(spec.corrupt_target)},
            {"clean_diff", scalar(result.clean_diff)},
            {"corrupt_diff", scalar(result.corrupt_diff)}};
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
        "  --ablate PART.L.H,…      ablate those heads (PART encoder, decoder, cross);\n"
        "                           --ablate-mode zero|mean (mean: compute and patch)\n"
        "  --knockout PART.L.H:Q>K,…  query Q ('*': every query) of that head no longer sees\n"
        "                           key K (compute and patch; cross: Q target, K source)\n"
        "  --logit-lens             compute --target adds lens_logits [Ld+1,vocab]: the\n"
        "                           decoder's stream at the last target position after its\n"
        "                           embedding and each layer, through the final norm and head\n"
        "  attnscope patch --model DIR --clean SRC [--corrupt SRC2] --target TGT\n"
        "                  [--corrupt-target TGT2] --answer ID --wrong ID -o OUT.npz\n"
        "                           each head patched from the clean run into the corrupted\n"
        "                           one: encoder_head_patch [Le,H], decoder_head_patch [Ld,H],\n"
        "                           cross_head_patch [Ld,H] (fraction of answer − wrong at the\n"
        "                           last target position restored), clean_diff, corrupt_diff\n"
        "  attnscope render --model DIR --text SRC [--target TGT] --view alignment -o OUT.png\n"
        "                           the cross-attention of the run (no --target: of the\n"
        "                           greedy translation); --view heads|model with --component\n"
        "                           Encoder|Decoder|Cross (default Cross) and --layer L;\n"
        "                           --ablate, --ablate-mode and --knockout as compute's\n");
}

}  // namespace cli
