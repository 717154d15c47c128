// AttnScope — the window's tab bar, in a fixed strip above the docks. GPL-3.0-or-later.
#include "widgets/tab_strip.hpp"

#include <QAction>
#include <QTabBar>
#include <QTabWidget>

TabStrip::TabStrip(QTabWidget* tabs, QWidget* parent)
    : QToolBar(tr("Tabs"), parent), tabs_(tabs), bar_(new QTabBar) {
    setObjectName(QStringLiteral("tabStrip"));
    setMovable(false);
    setFloatable(false);
    // Not a toolbar a user can hide (View ▸ and the toolbar context menu list none).
    toggleViewAction()->setVisible(false);
    setContentsMargins(0, 0, 0, 0);
    bar_->setObjectName(QStringLiteral("viewTabBar"));
    bar_->setDocumentMode(true);
    bar_->setDrawBase(false);
    bar_->setExpanding(false);
    bar_->setFocusPolicy(Qt::NoFocus);  // as the tab widget's own: keys go to the views
    addWidget(bar_);
    tabs_->tabBar()->hide();
    for (int i = 0; i < tabs_->count(); ++i)
        bar_->addTab(tabs_->tabText(i));
    bar_->setCurrentIndex(tabs_->currentIndex());
    connect(bar_, &QTabBar::currentChanged, tabs_, &QTabWidget::setCurrentIndex);
    connect(tabs_, &QTabWidget::currentChanged, bar_, &QTabBar::setCurrentIndex);
}

void TabStrip::addTab(const QString& title) {
    bar_->addTab(title);
    bar_->setCurrentIndex(tabs_->currentIndex());
}
