// AttnScope app tests — a shown window on tiny_folders.hpp's GPT-2 (3 layers × 2 heads) with a
// sentence typed and the Interventions tab open, a patching run typed and started as a user
// does, and the readers the figure and export tests share. GPL-3.0-or-later.
#pragma once

#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "tiny_folders.hpp"
#include "views/interventions_tab.hpp"
#include "views/patching_view.hpp"
#include "widgets/tab_strip.hpp"

namespace test_support {

/// Clicks the tab titled TITLE of BAR; false when there is none.
inline bool clickTabTitled(QTabBar* bar, const QString& title) {
    for (int i = 0; i < bar->count(); ++i)
        if (bar->tabText(i).remove(QLatin1Char('&')) == title) {
            QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(i).center());
            return true;
        }
    return false;
}

/// Replaces EDIT's text as a user does: a click, Ctrl+A, the keys.
inline void retype(QLineEdit* edit, const QString& text) {
    QTest::mouseClick(edit, Qt::LeftButton);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(edit, text);
}

/// A window at 1280×800 on the tiny GPT-2 in DIR running SENTENCE, on the Interventions tab;
/// "" or what went wrong.
inline QString openInterventions(MainWindow& w, const QString& dir, const QString& sentence,
                                 InterventionsTab** tab) {
    fileio::ModelController* models = attachQuietModels(w);
    if (!models->openModel(dir)) return QStringLiteral("the tiny model did not open");
    if (QString e = typeSentence(w, sentence); !e.isEmpty()) return e;
    *tab = w.findChild<InterventionsTab*>();
    if (!*tab || !clickTabTitled(w.findChild<TabStrip*>()->bar(), QStringLiteral("Interventions")))
        return QStringLiteral("no Interventions tab");
    if (!QTest::qWaitFor([&] { return w.tabs()->currentWidget() == *tab; }, 5000))
        return QStringLiteral("the Interventions tab did not open");
    return {};
}

/// Opens the Patching page, types CORRUPT, ANSWER and WRONG and presses Enter; "" once the
/// maps show the result, else the view's status.
inline QString runPatching(InterventionsTab* tab, const QString& corrupt, const QString& answer,
                           const QString& wrong) {
    clickTabTitled(tab->pages()->tabBar(), QStringLiteral("Patching"));
    PatchingView* view = tab->patching();
    if (!QTest::qWaitFor([&] { return view->isVisible(); }, 5000)) return QStringLiteral("hidden");
    retype(view->corruptEdit(), corrupt);
    retype(view->answerEdit(), answer);
    retype(view->wrongEdit(), wrong);
    QSignalSpy done(view, &PatchingView::finished);
    QTest::keyClick(view->wrongEdit(), Qt::Key_Return);
    if (!QTest::qWaitFor([&] { return done.count() > 0; }, 60000) ||
        view->result().heads.size() == 0)
        return view->status()->text();
    return {};
}

}  // namespace test_support
