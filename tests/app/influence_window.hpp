// AttnScope app tests — a window with a model folder open, a sentence typed and the Influence
// tab computed (influence_test.cpp, influence_fit_test.cpp). GPL-3.0-or-later.
#pragma once

#include <QString>

#include "app_test_support.hpp"
#include "main_window.hpp"
#include "tiny_folders.hpp"
#include "views/influence_view.hpp"

namespace test_support {

/// W with FOLDER open, TEXT typed (within the tiny GPT-2's 16 positions) and the Influence tab
/// shown and computed; nullptr when any step failed.
inline InfluenceView* openInfluence(MainWindow& w, const QString& folder,
                                    const QString& text = QStringLiteral("the cat sat on")) {
    fileio::ModelController* models = attachQuietModels(w);
    if (!models || !models->openModel(folder)) return nullptr;
    if (!typeSentence(w, text).isEmpty()) return nullptr;
    auto* view = w.findChild<InfluenceView*>();
    if (!view) return nullptr;
    w.tabs()->setCurrentWidget(view);
    settleAll(w.computeService());
    return view;
}

}  // namespace test_support
