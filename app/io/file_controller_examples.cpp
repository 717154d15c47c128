// AttnScope — File ▸ Examples, the FileController's part (the list: io/examples.hpp).
// GPL-3.0-or-later.
#include <QAction>
#include <QMenu>

#include "io/examples.hpp"
#include "io/file_controller.hpp"
#include "main_window.hpp"

namespace fileio {

void FileController::addExamplesMenu(QMenu* file) {
    auto* menu = new QMenu(tr("E&xamples"), file);
    menu->setObjectName(QStringLiteral("menuExamples"));
    menu->setToolTipsVisible(true);
    for (int i = 0; i < examples().size(); ++i) {
        QAction* a = menu->addAction(examples().at(i).title);
        a->setToolTip(examples().at(i).source);
        connect(a, &QAction::triggered, this, [this, i] { openExample(i); });
    }
    // Right after File ▸ Open Recent: both open something that is already there.
    const QList<QAction*> actions = file->actions();
    const qsizetype at = actions.indexOf(window_->recentMenu()->menuAction());
    file->insertMenu(at >= 0 && at + 1 < actions.size() ? actions.at(at + 1) : nullptr, menu);
}

bool FileController::openExample(int index) {
    if (index < 0 || index >= examples().size()) return false;
    if (!maybeSave()) return false;  // the example replaces the document, as a file does
    QString error;
    const QString path = materializeExample(examples().at(index), &error);
    if (path.isEmpty()) {
        fail(error);
        return false;
    }
    // Not remembered in File ▸ Recent: the examples are one click away already.
    return open(path, false);
}

}  // namespace fileio
