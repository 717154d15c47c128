// AttnScope app tests — a window running an encoder–decoder: a folder opened from Model ▸ Open
// Model, a source and a target typed into the Translation dock as a user types them
// (seq2seq_fit_test.cpp, seq2seq_docks_test.cpp). GPL-3.0-or-later.
#pragma once

#include <QLineEdit>
#include <QSignalSpy>
#include <QString>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "tiny_folders.hpp"

namespace test_support {

/// A click into EDIT, Ctrl+A, then TEXT's keys: what was there is replaced.
inline void typeOver(QLineEdit* edit, const QString& text) {
    QTest::mouseClick(edit, Qt::LeftButton);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(edit, text);
}

/// "" when X's rectangle lies inside every ancestor's up to its window (nothing cuts it: no
/// scroll area's viewport, no panel), else the first that cuts it.
inline QString cutBy(QWidget* x) {
    for (QWidget* a = x->parentWidget(); a && !a->isWindow(); a = a->parentWidget()) {
        const QRect r(x->mapTo(a, QPoint(0, 0)), x->size());
        if (!a->rect().contains(r))
            return QStringLiteral("%1 at %2,%3 %4×%5 is cut by %6 %7 (%8×%9)")
                .arg(x->objectName())
                .arg(r.x())
                .arg(r.y())
                .arg(r.width())
                .arg(r.height())
                .arg(QString::fromLatin1(a->metaObject()->className()), a->objectName())
                .arg(a->width())
                .arg(a->height());
    }
    return {};
}

/// W shown at SIZE with the encoder–decoder folder DIR open, then SOURCE and TARGET typed into
/// the Translation dock and Enter pressed (an empty TARGET: Translate clicked): "" once the run
/// is shown, else what went wrong.
inline QString openSeq2SeqRun(
    MainWindow& w, const QString& dir, QSize size,
    const QString& source = QStringLiteral("the cat sat on the mat"),
    const QString& target = QStringLiteral("die katze sass auf der matte")) {
    fileio::ModelController* models = attachQuietModels(w, false);
    if (!models) return QStringLiteral("no model controller");
    w.resize(size);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return QStringLiteral("the window is not exposed");
    if (!models->openModel(dir)) return models->lastError();
    settleAll(w.computeService());
    fileio::Seq2SeqDock* dock = models->seq2seqDock();
    QSignalSpy finished(dock, &fileio::Seq2SeqDock::finished);
    typeOver(dock->sourceEdit(), source);
    if (target.isEmpty()) {
        QTest::keyClick(dock->targetEdit(), Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(dock->targetEdit(), Qt::Key_Delete);
        QTest::mouseClick(dock->translateButton(), Qt::LeftButton);
    } else {
        typeOver(dock->targetEdit(), target);
        QTest::keyClick(dock->targetEdit(), Qt::Key_Return);
    }
    if (!finished.wait(60000)) return QStringLiteral("the run did not finish");
    settleAll(w.computeService());
    if (w.size() != size)
        return QStringLiteral("the window is not %1×%2").arg(size.width()).arg(size.height());
    return {};
}

/// The window sizes an encoder–decoder's screens are checked at, as QtTest data rows "size".
inline void windowSizes() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
}

}  // namespace test_support
