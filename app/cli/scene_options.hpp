// AttnScope — command-line options that mirror the controls dock. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>

#include "attn/scene/scene.hpp"

class QCommandLineParser;

namespace cli {

/// Declares --heads, --d-model, --mask, --temperature, … on the parser.
void addSceneOptions(QCommandLineParser& parser);

/// Applies the scene options that were given on top of `spec` (a loaded file or the default
/// scene). Returns an empty string, or a sentence describing the first invalid value.
QString applySceneOptions(const QCommandLineParser& parser, attn::SceneSpec& spec);

/// The names of the scene options, as the parser knows them ("text", "heads", …).
QStringList sceneOptionNames();

/// The help text of the scene options (one line each).
QString sceneOptionsHelp();

}  // namespace cli
