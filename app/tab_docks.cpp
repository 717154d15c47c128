// AttnScope — which docks each tab shows. GPL-3.0-or-later.
#include "tab_docks.hpp"

#include <QDockWidget>
#include <QTabWidget>

TabDocks::TabDocks(QTabWidget* tabs, QList<QDockWidget*> docks, QObject* parent)
    : QObject(parent), tabs_(tabs), docks_(std::move(docks)) {
    connect(tabs_, &QTabWidget::currentChanged, this, &TabDocks::onCurrentChanged);
}

void TabDocks::setDefault(QWidget* tab, QList<QDockWidget*> shown) {
    defaults_.insert(tab, std::move(shown));
}

bool TabDocks::wanted(QWidget* tab, QDockWidget* dock) const {
    const auto chosen = chosen_.constFind(tab);
    if (chosen != chosen_.constEnd() && chosen->contains(dock)) return chosen->value(dock);
    const auto d = defaults_.constFind(tab);
    return d == defaults_.constEnd() || d->contains(dock);
}

void TabDocks::apply() {
    current_ = tabs_->currentWidget();
    if (!current_) return;
    for (QDockWidget* dock : docks_)
        if (!dock->isFloating()) dock->setVisible(wanted(current_, dock));
}

void TabDocks::onCurrentChanged(int) {
    // What the user left on the tab being left is what it shows next time.
    if (current_)
        for (QDockWidget* dock : docks_)
            if (!dock->isFloating()) chosen_[current_][dock] = !dock->isHidden();
    apply();
}
