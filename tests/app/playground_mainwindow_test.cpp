// QtTest: the playground is a tab of the main window and edits it on the scene's undo stack.
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>

#include "main_window.hpp"
#include "model/playground_model.hpp"
#include "model/scene.hpp"
#include "playground/playground_widget.hpp"

class PlaygroundMainWindowTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void playgroundTabSharesTheUndoStack() {
        MainWindow mw;
        PlaygroundWidget* pg = nullptr;
        for (int i = 0; i < mw.tabs()->count(); ++i)
            if (mw.tabs()->tabText(i) == QStringLiteral("Playground"))
                pg = qobject_cast<PlaygroundWidget*>(mw.tabs()->widget(i));
        QVERIFY(pg != nullptr);
        QUndoStack* undo = mw.scene()->undoStack();
        const int before = undo->count();
        auto s = attn::playground_preset(attn::PlaygroundPreset::WorkedExample);
        pg->model()->setState(s, QStringLiteral("Load preset"));
        QCOMPARE(undo->count(), before + 1);
        QVERIFY(pg->state() == s);
        undo->undo();
        QVERIFY(!(pg->state() == s));
    }
};

QTEST_MAIN(PlaygroundMainWindowTest)
#include "playground_mainwindow_test.moc"
