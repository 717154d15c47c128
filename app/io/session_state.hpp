// AttnScope — the app's part of a session: views, selection and playground state.
// GPL-3.0-or-later.
#pragma once

#include <QJsonObject>

class MainWindow;

namespace fileio {

/// The state the window adds to a session's opaque "views" object, under view_keys: the view
/// state (open tab, focused head, display style, every lens's settings), the selection and the
/// playground's state. Read from the model, never from widgets.
QJsonObject captureViewState(const MainWindow& window);

/// Applies what captureViewState wrote to the view state; unknown or missing keys are ignored.
/// A 0.1 session's keys ("tab": a title, "lenses": labels) are read too, never written.
void restoreViewState(MainWindow& window, const QJsonObject& state);

}  // namespace fileio
