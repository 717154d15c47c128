// AttnScope — the scene a command line describes: input file, component, layer, options.
// GPL-3.0-or-later.
#include "cli/scene_input.hpp"
#include "cli/cli_tr.hpp"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <new>

#include "attn/error.hpp"
#include "attn/gpt2/model.hpp"
#include "attn/scene_layers.hpp"
#include "cli/exit_codes.hpp"
#include "io/file_loader.hpp"

namespace cli {
namespace {

/// Runs the GPT-2 folder of --model on the --text sentence with the scene options' scaling,
/// temperature and mask applied inside the run (GPT-2's causal mask unless --mask says
/// otherwise), and loads the run's raw scores, q, k and v as the scene's data.
int runModel(const Request& request, attn::SceneSpec& spec, SceneInput* input, QString* error) {
    const QString optionError = reapplySceneOptions(request, spec);
    if (!optionError.isEmpty()) {
        *error = optionError;
        return kExitUsage;
    }
    if (!request.sceneArgs.contains(QStringLiteral("--mask"))) spec.mask = attn::gpt2::causal();
    try {
        const std::string dir = QFile::encodeName(request.model).toStdString();
        const attn::gpt2::ModelFolder folder = attn::gpt2::open_folder(dir);
        attn::gpt2::RunControls controls;
        controls.scale = spec.scale;
        controls.temperature = spec.temperature;
        controls.mask = spec.mask;
        const attn::gpt2::Run run =
            folder.model->run(folder.tokenizer->encode(spec.text), controls);
        spec.data = std::make_shared<const attn::AttentionData>(
            attn::gpt2::attention_data(run, *folder.model, *folder.tokenizer, dir));
        spec.tokens.clear();
        input->tokenIds = run.ids;
        input->logits.assign(run.logits.data(), run.logits.data() + run.logits.size());
    } catch (const std::bad_alloc&) {
        *error = tr("%1: not enough memory to run the model").arg(request.model);
        return kExitResource;
    } catch (const attn::ArgumentError& e) {
        *error = QString::fromUtf8(e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
        return kExitInput;
    }
    return kExitOk;
}

}  // namespace

int prepareScene(const Request& request, SceneInput* input, QString* error) {
    attn::SceneSpec spec;
    if (!request.model.isEmpty()) {
        if (const int code = runModel(request, spec, input, error); code != kExitOk) return code;
    } else if (!request.file.isEmpty()) {
        if (!QFileInfo::exists(request.file)) {
            *error = tr("%1: no such file").arg(request.file);
            return kExitInput;
        }
        try {
            fileio::Opened opened = fileio::readFile(request.file, spec);
            spec = std::move(opened.spec);
            input->viewsJson = opened.viewsJson;
        } catch (const std::bad_alloc&) {
            *error = tr("%1: not enough memory to load it").arg(request.file);
            return kExitResource;
        } catch (const attn::ResourceError& e) {
            *error = QString::fromUtf8(e.what());
            return kExitResource;
        } catch (const std::exception& e) {
            *error = QString::fromUtf8(e.what());
            return kExitInput;
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
    // A model run applied the options before the run (a --text would replace its data now).
    const QString optionError =
        request.model.isEmpty() ? reapplySceneOptions(request, spec) : QString();
    if (!optionError.isEmpty()) {
        *error = optionError;
        return kExitUsage;
    }
    input->spec = std::move(spec);
    return kExitOk;
}

}  // namespace cli
