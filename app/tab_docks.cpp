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

void TabDocks::setDockTabs(QDockWidget* dock, QList<QWidget*> tabs) {
    dockTabs_.insert(dock, std::move(tabs));
    if (!docks_.contains(dock)) docks_.append(dock);
    place(dock);
}

bool TabDocks::wanted(QWidget* tab, QDockWidget* dock) const {
    const auto chosen = chosen_.constFind(tab);
    if (chosen != chosen_.constEnd() && chosen->contains(dock)) return chosen->value(dock);
    if (const auto only = dockTabs_.constFind(dock); only != dockTabs_.constEnd())
        return only->contains(tab);
    const auto d = defaults_.constFind(tab);
    return d == defaults_.constEnd() || d->contains(dock);
}

void TabDocks::place(QDockWidget* dock) {
    if (!available(dock))
        dock->setVisible(false);  // floating too: it has nothing to show
    else if (dock->isFloating())
        dock->setVisible(true);  // the user took it out of the window: it stays in view
    else if (current_)
        dock->setVisible(wanted(current_, dock));
}

void TabDocks::apply() {
    current_ = tabs_->currentWidget();
    if (!current_) return;
    for (QDockWidget* dock : docks_)
        if (!dock->isFloating() || !available(dock)) place(dock);
}

void TabDocks::setAvailable(QDockWidget* dock, bool available) {
    TabDocks* docks = dock->parentWidget() ? dock->parentWidget()->findChild<TabDocks*>(
                                                 QString(), Qt::FindDirectChildrenOnly)
                                           : nullptr;
    if (!docks || !docks->docks_.contains(dock)) {
        dock->setVisible(available);
        if (docks) docks->available_.insert(dock, available);
        return;
    }
    const auto said = docks->available_.constFind(dock);
    if (said != docks->available_.constEnd() && *said == available) return;
    docks->available_.insert(dock, available);
    docks->place(dock);
}

void TabDocks::onCurrentChanged(int) {
    // What the user left on the tab being left is what it shows next time; a dock with nothing
    // to show was hidden by no one's choice.
    if (current_)
        for (QDockWidget* dock : docks_)
            if (!dock->isFloating() && available(dock)) chosen_[current_][dock] = !dock->isHidden();
    apply();
}
