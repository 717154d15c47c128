// Tests of the Scene: undo/redo restore specs exactly, merging, selection.
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include "attn/scene/spec_edit.hpp"
#include "model/scene.hpp"

class SceneTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void undoRestoresExactly() {
        Scene scene;
        scene.setMergeWindow(0);
        const attn::SceneSpec original = scene.spec();
        QSignalSpy changed(&scene, &Scene::specChanged);

        attn::SceneSpec a = original;
        a.temperature = 0.25f;
        a.mask.kind = attn::MaskKind::GlobalWindow;
        a.mask.global = {0, 4};
        a.embeddings = std::make_shared<const attn::Matrix>(attn::Matrix::Constant(13, 64, 0.5f));
        scene.setSpec(a, QStringLiteral("a"));
        attn::SceneSpec b = attn::with_d_model(a, 96);
        b.text = "A different sentence .";
        scene.setSpec(b, QStringLiteral("b"));
        QCOMPARE(changed.count(), 2);
        QVERIFY(scene.spec() == b);

        scene.undoStack()->undo();
        QVERIFY(scene.spec() == a);
        scene.undoStack()->undo();
        QVERIFY(scene.spec() == original);
        QVERIFY(!scene.undoStack()->canUndo());
        scene.undoStack()->redo();
        scene.undoStack()->redo();
        QVERIFY(scene.spec() == b);
        QCOMPARE(changed.count(), 6);
    }

    void noOpEditsLeaveNoUndoStep() {
        Scene scene;
        scene.setSpec(scene.spec(), QStringLiteral("nothing"));
        QCOMPARE(scene.undoStack()->count(), 0);
    }

    void consecutiveEditsOfOneControlMerge() {
        Scene scene;
        scene.setMergeWindow(60'000);  // never expires during the test
        const attn::SceneSpec original = scene.spec();
        for (float t : {0.5f, 0.6f, 0.7f}) {
            attn::SceneSpec s = scene.spec();
            s.temperature = t;
            scene.setSpec(s, QStringLiteral("temperature"), 1);
        }
        QCOMPARE(scene.undoStack()->count(), 1);
        scene.undoStack()->undo();
        QVERIFY(scene.spec() == original);
        scene.undoStack()->redo();
        QCOMPARE(scene.spec().temperature, 0.7f);

        // Another control does not merge into it.
        attn::SceneSpec s = scene.spec();
        s.seed = 7;
        scene.setSpec(s, QStringLiteral("seed"), 2);
        QCOMPARE(scene.undoStack()->count(), 2);
    }

    void draggedBackToStartLeavesNothing() {
        Scene scene;
        scene.setMergeWindow(60'000);
        attn::SceneSpec s = scene.spec();
        s.temperature = 2.f;
        scene.setSpec(s, QStringLiteral("t"), 1);
        s.temperature = 1.f;
        scene.setSpec(s, QStringLiteral("t"), 1);
        QCOMPARE(scene.undoStack()->count(), 0);
    }

    void selectionIsClamped() {
        Scene scene;
        QSignalSpy spy(&scene, &Scene::selectionChanged);
        scene.setSelection(Selection{10, 12, 3});
        scene.clampSelection(5, 6, 2);
        QCOMPARE(scene.selection(), (Selection{4, 5, 1}));
        QCOMPARE(spy.count(), 2);
        scene.clampSelection(5, 6, 2);
        QCOMPARE(spy.count(), 2);
    }
};

QTEST_GUILESS_MAIN(SceneTest)
#include "scene_test.moc"
