// AttnScope — the scene a command line describes: input file, component, layer, options.
// GPL-3.0-or-later.
#include "cli/scene_input.hpp"
#include "cli/cli_tr.hpp"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <new>

#include "attn/models/families.hpp"
#include "attn/models/run.hpp"
#include "attn/scene/embedding.hpp"
#include "attn/scene/scene_layers.hpp"
#include "attn/util/error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/intervention_options.hpp"
#include "cli/scene_options.hpp"
#include "io/file_loader.hpp"
#include "model/error_text.hpp"
#include "model/seq2seq_run.hpp"

namespace cli {
namespace {

/// Opens the encoder–decoder DIR and shows its run on --text and --target (none: the model's
/// greedy translation) as loaded data of three components, Cross first.
int openSeq2Seq(const Request& request, const std::string& dir, attn::SceneSpec& spec,
                QString* error) {
    if (!request.modelLayers.empty() || !request.interventions.ablated.empty() ||
        !request.interventions.knockouts.empty()) {
        *error = tr("--layers, --ablate L.H and --knockout L.H:Q>K apply to decoder-only models: "
                    "%1 is an encoder–decoder (--ablate PART.L.H, --knockout PART.L.H:Q>K)")
                     .arg(request.model);
        return kExitUsage;
    }
    Seq2SeqInput in;
    in.source = spec.text;
    in.target = request.target.toStdString();
    in.translate = in.target.empty();
    in.options.controls = request.seq2seq;
    try {
        const attn::model::Seq2SeqFolder folder = attn::model::open_seq2seq(dir);
        const Seq2SeqOutcome outcome = runSeq2Seq(folder, in);
        spec = seq2seqSpec(spec, outcome);
    } catch (const std::bad_alloc&) {
        *error = tr("%1: not enough memory to run the model").arg(request.model);
        return kExitResource;
    } catch (const attn::ArgumentError& e) {  // a sentence past the model's positions
        *error = errorText(e, request.model);
        return kExitUsage;
    } catch (const std::exception& e) {
        *error = errorText(e, request.model);
        return dynamic_cast<const attn::ResourceError*>(&e) ? kExitResource : kExitInput;
    }
    return kExitOk;
}

/// Opens the model folder of --model as the scene's model: it runs on the --text sentence with
/// the scene options' scaling, temperature and mask applied inside the run, in the --layers
/// (GPT-2's causal mask unless --mask says otherwise).
int openModel(const Request& request, attn::SceneSpec& spec, QString* error) {
    const QString optionError = reapplySceneOptions(request, spec);
    if (!optionError.isEmpty()) {
        *error = optionError;
        return kExitUsage;
    }
    // The parser's view of the options: --mask=none, -mask none and --mask none alike.
    try {
        const std::string dir = QFile::encodeName(request.model).toStdString();
        if (isSeq2SeqFolder(dir)) return openSeq2Seq(request, dir, spec, error);
        if (!request.target.isEmpty()) {
            *error = tr("--target: %1 is not an encoder–decoder (Marian, T5)").arg(request.model);
            return kExitUsage;
        }
        if (!request.seq2seq.ablate.empty() || !request.seq2seq.knockouts.empty()) {
            *error = tr("--ablate PART.L.H and --knockout PART.L.H:Q>K name an encoder–decoder's "
                        "heads: %1 is not one (its heads are L.H)")
                         .arg(request.model);
            return kExitUsage;
        }
        spec.set_model(
            std::make_shared<const attn::model::ModelFolder>(attn::model::open_folder(dir)));
    } catch (const std::bad_alloc&) {
        *error = tr("%1: not enough memory to open the model").arg(request.model);
        return kExitResource;
    } catch (const std::exception& e) {
        *error = errorText(e, request.model);
        return dynamic_cast<const attn::ResourceError*>(&e) ? kExitResource : kExitInput;
    }
    // The model's own mask (causal, or none for an encoder) unless --mask says otherwise.
    if (!request.given.contains(QStringLiteral("mask")))
        spec.mask = attn::model::own_mask(spec.model->model->info());
    const int layers = spec.model->model->info().layers;
    for (const int l : request.modelLayers)
        if (l >= layers) {
            *error = tr("--layers: %1 is out of range (the model has %2 layers: 0…%3)")
                         .arg(l)
                         .arg(layers)
                         .arg(layers - 1);
            return kExitUsage;
        }
    spec.model_layers = request.modelLayers;
    spec.model_rotary = !request.given.contains(QStringLiteral("no-rotary"));
    if (!spec.model_rotary && !spec.model->model->info().rotary) {
        *error = tr("--no-rotary: %1 is a %2 model, which has no rotary positions")
                     .arg(request.model, QString::fromStdString(spec.model->model->info().display));
        return kExitUsage;
    }
    spec.model_softcap = !request.given.contains(QStringLiteral("no-softcap"));
    if (!spec.model_softcap && !spec.model->model->info().softcap) {
        *error = tr("--no-softcap: %1 is a %2 model, which does not soft-cap its scores")
                     .arg(request.model, QString::fromStdString(spec.model->model->info().display));
        return kExitUsage;
    }
    spec.interventions = request.interventions;
    spec.score = attn::ScoreKind::Dot;
    spec.tokens.clear();
    return kExitOk;
}

/// "" when --pad and --knockout change the scene; else why not: the mask is not the padding
/// one, or a position is past the scene's tokens (they would be ignored without a word).
QString positionsOutside(const Request& request, const attn::SceneSpec& spec) {
    const bool pad = request.given.contains(QStringLiteral("pad"));
    const bool knockout = request.given.contains(QStringLiteral("knockout")) && spec.is_model() &&
                          !request.induction;  // the induction test has tokens of its own
    if (pad && spec.mask.kind != attn::MaskKind::Padding)
        return tr("--pad hides keys of the padding mask, but the mask is %1; give --mask padding")
            .arg(QString::fromUtf8(attn::to_string(spec.mask.kind)));
    if (!pad && !knockout) return {};
    const TokenCounts n = tokenCounts(spec);
    // The flags end at the largest position given (see applySceneOptions).
    const std::size_t last = spec.mask.key_valid.empty() ? 0 : spec.mask.key_valid.size() - 1;
    if (pad && last >= n.keys)
        return tr("--pad: position %1 is past the %2 keys of the scene (positions 0…%3), so it "
                  "would hide nothing")
            .arg(last)
            .arg(n.keys)
            .arg(qlonglong(n.keys) - 1);
    return knockout ? knockoutOutside(spec.interventions.knockouts, n.keys, tr("--text"))
                    : QString();
}

}  // namespace

TokenCounts tokenCounts(const attn::SceneSpec& spec) {
    TokenCounts n;
    if (spec.is_model()) {
        // No further than the model's positions: a longer text is refused by the run itself.
        bool more = false;
        n.queries = n.keys =
            spec.run_ids(std::size_t(spec.model->model->info().max_positions), &more).size();
    } else if (spec.is_loaded()) {
        const auto& c = spec.data->components.at(std::size_t(spec.component));
        n.queries = c.q_tokens.size(), n.keys = c.k_tokens.size();
    } else {
        n.queries = spec.query_tokens().size();
        n.keys = spec.cross_text.empty() ? n.queries : attn::tokenize(spec.cross_text).size();
    }
    return n;
}

QString inputName(const Request& request) {
    if (!request.model.isEmpty()) return request.model;
    if (!request.file.isEmpty()) return request.file;
    return tr("the default scene");
}

int prepareScene(const Request& request, SceneInput* input, QString* error) {
    attn::SceneSpec spec;
    if (!request.model.isEmpty()) {
        if (const int code = openModel(request, spec, error); code != kExitOk) return code;
    } else if (!request.file.isEmpty()) {
        if (!QFileInfo::exists(request.file)) {
            *error = tr("%1: no such file").arg(request.file);
            return kExitInput;
        }
        try {
            fileio::Opened opened = fileio::readFile(request.file, spec);
            spec = std::move(opened.spec);
            input->viewsJson = opened.viewsJson;
            // The run goes on with the folder as it is; the user hears that it changed.
            if (!opened.warning.isEmpty())
                std::fprintf(stderr, "attnscope: warning: %s\n",
                             opened.warning.toLocal8Bit().constData());
            // With no scene option typed, what the scene holds is the file's alone.
            const QStringList options = sceneOptionNames();
            if (std::none_of(request.given.begin(), request.given.end(),
                             [&](const QString& n) { return options.contains(n); }))
                input->blame = request.file;
        } catch (const std::bad_alloc&) {
            *error = tr("%1: not enough memory to load it").arg(request.file);
            return kExitResource;
        } catch (const attn::ResourceError& e) {
            *error = errorText(e, request.file);
            return kExitResource;
        } catch (const std::exception& e) {
            *error = errorText(e, request.file);
            return kExitInput;
        }
    }
    // Loaded attention has its own heads, width and scores: options that build a computed
    // scene would be ignored without a word.
    // (A --model run was checked with the command line; a session may run a model too.)
    if (spec.is_loaded() || (spec.is_model() && request.model.isEmpty())) {
        if (const QString bad = inapplicableOptions(request, spec.is_model()); !bad.isEmpty()) {
            *error = tr("%1: not an option of %2 (%3 has its own heads, width and scores)")
                         .arg(bad, spec.is_model() ? tr("a model's run") : tr("loaded attention"),
                              request.file);
            return kExitUsage;
        }
    }
    if (!request.component.isEmpty()) {
        const int c = fileio::findComponent(spec, request.component);
        if (c < 0) {
            *error = tr("--component: no component '%1' (available: %2)")
                         .arg(request.component, fileio::componentList(spec));
            return kExitUsage;
        }
        spec.component = c;
        spec.layer = 0;
    }
    if (request.layer) {
        const int layers = static_cast<int>(attn::layer_count(spec));
        if (*request.layer >= layers) {
            *error = tr("--layer: %1 is out of range (the scene has %2 layer(s): 0…%3)")
                         .arg(*request.layer)
                         .arg(layers)
                         .arg(layers - 1);
            return kExitUsage;
        }
        spec.layer = *request.layer;
    }
    // A model scene has its options already (its mask defaults to GPT-2's causal one).
    const QString optionError =
        request.model.isEmpty() ? reapplySceneOptions(request, spec) : QString();
    if (!optionError.isEmpty()) {
        *error = optionError;
        return kExitUsage;
    }
    // The text is tokenised here when a position must be checked against it: what a hostile
    // tokenizer makes of it is refused with the tokenizer's name (a ResourceError says it).
    try {
        if (const QString outside = positionsOutside(request, spec); !outside.isEmpty()) {
            *error = outside;
            return kExitUsage;
        }
    } catch (const std::bad_alloc&) {
        *error = tr("%1: not enough memory to tokenise the text").arg(inputName(request));
        return kExitResource;
    } catch (const std::exception& e) {
        *error = errorText(e, inputName(request));
        return dynamic_cast<const attn::ResourceError*>(&e) ? kExitResource : kExitInput;
    }
    input->spec = std::move(spec);
    return kExitOk;
}

}  // namespace cli
