// QtTest: the Influence tab refuses work past core's limit (issue 39) as `attnscope attribute`
// does — one rule in core (attrib::work_refusal) — driven with real events: the IG steps typed,
// 1500 words pasted into the sentence of a tiny Phi-3 of 2048 positions (decoder_tiny.py).
// GPL-3.0-or-later.
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/attribution/token_attribution.hpp"
#include "attn/models/run.hpp"
#include "attn/models/run_inputs.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/util/error.hpp"
#include "influence_window.hpp"
#include "model/influence_compute.hpp"
#include "model/influence_model.hpp"
#include "tiny_folders.hpp"
#include "views/influence_view.hpp"
#include "widgets/token_editor.hpp"

class InfluenceLimitTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeInfluenceLimitTest"));
        // A Phi-3 of 2048 positions: long enough for work past the limit.
        QCOMPARE(test_support::writeTinyFolder(
                     ATTN_CORE_TESTS_DIR "/decoder_tiny.py", long_.path(),
                     {QStringLiteral("11"), QStringLiteral("phi3"), QStringLiteral("2048")}),
                 QString());
    }

    /// Work past core's limit (integrated gradients of 1024 steps over 1500 tokens) is refused
    /// before anything runs, with the message `attnscope attribute` gives: one rule in core.
    void tooMuchWorkIsRefused() {
        MainWindow w;
        InfluenceView* view =
            test_support::openInfluence(w, long_.path(), QStringLiteral("the cat"));
        QVERIFY(view);
        QVERIFY2(view->model()->result(), qPrintable(view->status()->text()));
        auto* steps = view->findChild<QSpinBox*>(QStringLiteral("influenceSteps"));
        QVERIFY(steps);
        QTest::mouseDClick(steps->findChild<QLineEdit*>(), Qt::LeftButton);
        QTest::keyClick(steps, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(steps, QStringLiteral("1024"));
        QTest::keyClick(steps, Qt::Key_Return);
        test_support::settleAll(w.computeService());
        QCOMPARE(view->model()->steps(), 1024);
        QVERIFY2(view->model()->result(), qPrintable(view->status()->text()));
        // 1500 words pasted into the sentence.
        QStringList words;
        for (int i = 0; i < 1500; ++i)
            words << QStringLiteral("the");
        const QString text = words.join(QLatin1Char(' '));
        QGuiApplication::clipboard()->setText(text);
        QPlainTextEdit* edit = w.tokenEditor()->editor();
        QTest::mouseClick(edit->viewport(), Qt::LeftButton);
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(edit, Qt::Key_V, Qt::ControlModifier);
        QVERIFY(
            QTest::qWaitFor([&] { return w.scene()->spec().text == text.toStdString(); }, 20000));
        test_support::settleAll(w.computeService());
        const attn::SceneSpec spec = w.scene()->spec();
        const attn::model::Model& model = *spec.model->model;
        const std::string why = attn::attrib::work_refusal(
            model.info(), attn::Index(attn::model::checked_run_ids(spec).size()),
            influence::work(model, 1024));
        QVERIFY(why.starts_with("integrated_gradients of 150"));
        QCOMPARE(view->status()->text(), QString::fromStdString(why));
        QVERIFY(!view->model()->result());
        // The CLI's own refusal of the same work names the same numbers.
        attn::attrib::AttributionRequest ask;
        ask.steps = 1024;
        QVERIFY_THROWS_EXCEPTION(
            attn::ResourceError,
            attn::attrib::attribute_tokens(model, attn::model::checked_run_ids(spec), ask));
        w.scene()->undoStack()->setClean();
    }

  private:
    QTemporaryDir long_;
};

QTEST_MAIN(InfluenceLimitTest)
#include "influence_limit_test.moc"
