// AttnScope — the scene a command line describes: input file, component, layer, options.
// GPL-3.0-or-later.
#include "cli/scene_input.hpp"
#include "cli/cli_tr.hpp"

#include <QCoreApplication>
#include <QFileInfo>
#include <new>

#include "attn/error.hpp"
#include "attn/scene_layers.hpp"
#include "cli/exit_codes.hpp"
#include "io/file_loader.hpp"

namespace cli {
namespace {}  // namespace

int prepareScene(const Request& request, SceneInput* input, QString* error) {
    attn::SceneSpec spec;
    if (!request.file.isEmpty()) {
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
    const QString optionError = reapplySceneOptions(request, spec);
    if (!optionError.isEmpty()) {
        *error = optionError;
        return kExitUsage;
    }
    input->spec = std::move(spec);
    return kExitOk;
}

}  // namespace cli
