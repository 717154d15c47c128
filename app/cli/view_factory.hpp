// AttnScope — builds the view a `render --view NAME` asks for, offscreen. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <memory>

#include "cli/cli_request.hpp"
#include "model/compute_service.hpp"

class QWidget;
class Scene;

namespace cli {

/// Creates the same widget the GUI shows for request.view, laid out at request.size and filled
/// with `result` (a top-level widget, shown with WA_DontShowOnScreen). On failure returns null,
/// sets *error and *code (kExitUsage for an unknown view or head).
std::unique_ptr<QWidget> createView(const Request& request, Scene* scene, SceneResultPtr result,
                                    const QString& viewsJson, QString* error, int* code);

}  // namespace cli
