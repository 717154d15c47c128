// AttnScope — the app's part of a session: views, selection and playground state.
// GPL-3.0-or-later.
#pragma once

#include <QJsonObject>

class MainWindow;

namespace fileio {

/// The state the window adds to a session's opaque "views" object: current tab, selection,
/// focused head, the playground's state when there is a playground, the display settings
/// (colour map, log scale, shared range, blocks) and every Theory lens's own controls.
QJsonObject captureViewState(const MainWindow& window);

/// Applies what captureViewState wrote; unknown or missing keys are ignored (older sessions).
void restoreViewState(MainWindow& window, const QJsonObject& state);

}  // namespace fileio
