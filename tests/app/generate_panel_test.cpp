// QtTest: the Model dock's Generate section on a tiny random GPT-2 (tests/core/gpt2_tiny.py),
// driven with real events: greedy generation streams tokens into the sentence (the sentence box
// and the heatmaps follow, a row per token) and equals core's attn::gen::generate; the step
// slider goes back to a step (the sentence up to it, the top 10 it came from); sampled with
// top-k the cut candidates are marked and the seed repeats; a control changed while running
// reaches the options the next step reads; Stop ends the job.
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/generate/generate.hpp"
#include "io/data_io.hpp"
#include "io/generate_panel.hpp"
#include "io/model_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "tiny_folders.hpp"
#include "views/heatmap_grid.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

namespace {

/// Types TEXT into a spin box as a user does (select all, type, Return).
void typeInto(QAbstractSpinBox* box, const QString& text) {
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, text);
    QTest::keyClick(box, Qt::Key_Return);
}

/// W (data I/O attached; shown, unless SHOW is false) with the tiny GPT-2 in DIR opened and
/// SENTENCE, when given, typed: its Generate panel, or nullptr with *ERROR saying why.
fileio::GeneratePanel* openTiny(MainWindow& w, const QString& dir, QString* error,
                                const QString& sentence = {}, bool show = true) {
    fileio::ModelController* models = test_support::attachQuietModels(w, show);
    if (!models)
        *error = QStringLiteral("no model controller");
    else if (!models->openModel(dir))
        *error = models->lastError();
    else if (!sentence.isEmpty())
        *error = test_support::typeSentence(w, sentence);
    auto* panel = w.findChild<fileio::GeneratePanel*>();
    if (!panel && error->isEmpty()) *error = QStringLiteral("no Generate panel");
    return error->isEmpty() ? panel : nullptr;
}

/// Waits for the panel's job: the scheduler idle, then the tokens it posted delivered.
void finish(MainWindow& w, fileio::GeneratePanel* panel) {
    Scheduler::instance().waitForIdle(panel);
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    test_support::settleAll(w.computeService());
}

}  // namespace

class GeneratePanelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(dir_.isValid());
        const QString error = test_support::writeTinyGpt2(dir_.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void generatesStreamsAndScrubs() {
        MainWindow w;
        QString error;
        auto* panel = openTiny(w, dir_.path(), &error, QStringLiteral("the cat"));
        QVERIFY2(panel, qPrintable(error));
        const QPlainTextEdit* edit = w.tokenEditor()->editor();
        const auto folder = w.scene()->spec().model;
        const std::vector<std::int32_t> prompt = folder->tokenizer->encode("the cat");

        // Greedy, 5 tokens: a click on Generate.
        typeInto(panel->tokensBox(), QStringLiteral("5"));
        QVERIFY(panel->greedyBox()->isChecked());
        QVERIFY(!panel->temperatureBox()->isEnabled());  // sampling settings wait for sampling
        QSignalSpy steps(panel, &fileio::GeneratePanel::stepAdded);
        QSignalSpy done(panel, &fileio::GeneratePanel::finished);
        QVERIFY(panel->generateButton()->isEnabled());
        // Nothing generated yet: no step slider and no empty top-10 box.
        QVERIFY(!panel->stepSlider()->isVisibleTo(panel));
        QVERIFY(!panel->distribution()->isVisibleTo(panel));
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        QVERIFY(panel->running());
        QVERIFY(panel->stopButton()->isEnabled());
        finish(w, panel);
        QCOMPARE(done.count(), 1);
        QCOMPARE(steps.count(), 5);
        QVERIFY(panel->stepSlider()->isVisibleTo(panel));
        QVERIFY(panel->distribution()->isVisibleTo(panel));
        QVERIFY(!panel->running());
        attn::gen::GenerateOptions o;
        o.tokens = 5;
        o.controls = panel->options().controls;
        const attn::gen::Generation core =
            attn::gen::generate(*folder->model, *folder->tokenizer, prompt, o);
        QCOMPARE(panel->generation().ids, core.ids);
        QCOMPARE(panel->generation().prompt, prompt.size());
        for (std::size_t i = 1; i < core.ids.size(); ++i)
            QVERIFY(std::abs(panel->generation().logprobs[i] - core.logprobs[i]) < 1e-5f);
        // The sentence is the generated text: the sentence box and the heatmaps show it.
        const std::string text = folder->tokenizer->decode(core.ids);
        QCOMPARE(w.scene()->spec().text, text);
        QCOMPARE(edit->toPlainText().toStdString(), text);
        QCOMPARE(w.result()->run->ids, core.ids);  // the generated ids, not text's encoding
        QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), w.scene()->spec()), QString());
        QVERIFY(panel->textLabel()->text().contains(QStringLiteral("<u>")));
        // The last step's top 10: the chosen one first and bold, nothing cut (greedy keeps one).
        QCOMPARE(panel->distribution()->count(), 10);
        QVERIFY(panel->distribution()->item(0)->font().bold());
        QCOMPARE(panel->stepSlider()->maximum(), 4);
        QCOMPARE(panel->stepSlider()->value(), 4);

        // Back to step 1 with the keyboard: the sentence up to its token, and its distribution.
        panel->stepSlider()->setFocus();
        QTest::keyClick(panel->stepSlider(), Qt::Key_Home);
        QCOMPARE(panel->stepSlider()->value(), 0);
        const std::vector<std::int32_t> first(core.ids.begin(),
                                              core.ids.begin() + prompt.size() + 1);
        QCOMPARE(w.scene()->spec().text, folder->tokenizer->decode(first));
        test_support::settleAll(w.computeService());
        QCOMPARE(w.result()->run->ids, first);
        const QString row0 = panel->distribution()->item(0)->text();
        QVERIFY2(row0.contains(QString::fromStdString(
                     folder->tokenizer->token_text(core.choices[0].top[0].id))),
                 qPrintable(row0));

        // Sampled with top-k 3 and seed 4 (typed): three kept, the rest marked cut; it repeats.
        QTest::mouseClick(panel->greedyBox(), Qt::LeftButton, {},
                          QPoint(6, panel->greedyBox()->height() / 2));
        QVERIFY(!panel->greedyBox()->isChecked());
        QVERIFY(panel->topKBox()->isEnabled());
        typeInto(panel->topKBox(), QStringLiteral("3"));
        typeInto(panel->seedBox(), QStringLiteral("4"));
        typeInto(panel->temperatureBox(), QStringLiteral("2"));
        w.scene()->setSpec(
            [&] {
                attn::SceneSpec s = w.scene()->spec();
                s.text = "the cat";
                return s;
            }(),
            QStringLiteral("Edit sentence"));
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        finish(w, panel);
        QCOMPARE(panel->distribution()->count(), 10);
        int cut = 0;
        for (int i = 0; i < 10; ++i)
            cut += panel->distribution()->item(i)->text().contains(QStringLiteral("cut"));
        QCOMPARE(cut, 7);
        o.sampling = {false, 2.f, 3, 1.f, 4};
        const attn::gen::Generation sampled =
            attn::gen::generate(*folder->model, *folder->tokenizer, prompt, o);
        QCOMPARE(panel->generation().ids, sampled.ids);
        for (const attn::gen::Choice& c : panel->generation().choices)
            QCOMPARE(c.kept, 3);
    }

    void aControlChangedWhileRunningReachesTheNextStep() {
        MainWindow w;
        QString error;
        auto* panel = openTiny(w, dir_.path(), &error, {}, false);
        QVERIFY2(panel, qPrintable(error));
        typeInto(panel->tokensBox(), QStringLiteral("8"));
        // What the worker reads before each step follows every control at once (running or
        // not): sampling on, then a head ablated in the scene.
        QVERIFY(panel->live().get().sampling.greedy);
        QTest::mouseClick(panel->greedyBox(), Qt::LeftButton, {},
                          QPoint(6, panel->greedyBox()->height() / 2));
        QVERIFY(!panel->live().get().sampling.greedy);
        typeInto(panel->topKBox(), QStringLiteral("5"));
        QCOMPARE(panel->live().get().sampling.top_k, 5);
        attn::SceneSpec s = w.scene()->spec();
        s.text = "the cat";
        s.interventions.ablated = {{attn::model::kSingleStack, 0, 1}};
        w.scene()->setSpec(s, QStringLiteral("Ablate"));
        QCOMPARE(panel->live().get().controls.interventions.ablated,
                 (std::vector<attn::model::Site>{{attn::model::kSingleStack, 0, 1}}));
        // Generate, then Stop before the job's first token reaches the window (click() runs
        // the handlers without an event loop turn, so the job cannot have been seen to end).
        QSignalSpy done(panel, &fileio::GeneratePanel::finished);
        panel->generateButton()->click();
        QVERIFY(panel->running());
        panel->stopButton()->click();
        QCOMPARE(done.count(), 1);
        QVERIFY(!panel->running());
        QVERIFY(panel->generateButton()->isEnabled());
        finish(w, panel);
        QCOMPARE(done.count(), 1);  // the job's own end, if it got there, is not a second one
        QVERIFY(!Scheduler::instance().isActive(panel, QStringLiteral("generate")));
        // The tokens that reached the window before the stop are the ablated run's.
        const attn::gen::Generation& g = panel->generation();
        if (g.run) QCOMPARE(g.run->controls.interventions.ablated.size(), std::size_t(1));
    }

    /// Asked for more tokens than the model's positions hold, the panel says why it made fewer:
    /// the tiny GPT-2 reads 16 positions, "the cat sat" is 10 of them, so 6 come of 16 asked.
    void fewerTokensThanAskedSaysWhy() {
        MainWindow w;
        QString error;
        auto* panel = openTiny(w, dir_.path(), &error, QStringLiteral("the cat sat"));
        QVERIFY2(panel, qPrintable(error));
        const auto folder = w.scene()->spec().model;
        QCOMPARE(int(folder->model->info().max_positions), 16);
        QCOMPARE(folder->tokenizer->encode("the cat sat").size(), std::size_t(10));
        typeInto(panel->tokensBox(), QStringLiteral("16"));
        QSignalSpy done(panel, &fileio::GeneratePanel::finished);
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        finish(w, panel);
        QCOMPARE(done.count(), 1);
        QCOMPARE(panel->generation().choices.size(), std::size_t(6));
        const QString status = panel->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("6 token(s) generated")) &&
                     status.contains(QStringLiteral("16 positions")),
                 qPrintable(status));
        w.scene()->undoStack()->setClean();
    }

    /// Scrubbing shows exactly the generated ids, even where their text encodes to other ids:
    /// the tiny GPT-2's byte-level vocabulary makes bytes that are no UTF-8 on their own (the
    /// text shows U+FFFD for them) and merges "h" + "e" into "he".
    void scrubbingRunsTheGeneratedIdsNotTheirTextsEncoding() {
        MainWindow w;
        QString error;
        auto* panel = openTiny(w, dir_.path(), &error, QStringLiteral("the cat"));
        QVERIFY2(panel, qPrintable(error));
        const auto folder = w.scene()->spec().model;
        const attn::model::Tokenizer& tok = *folder->tokenizer;
        typeInto(panel->tokensBox(), QStringLiteral("10"));
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        finish(w, panel);
        const attn::gen::Generation& g = panel->generation();
        QVERIFY(g.choices.size() >= 4);
        // Some step's text does not encode back to its ids (else this test proves nothing).
        int odd = -1;
        for (int s = 0; s < int(g.choices.size()) && odd < 0; ++s) {
            const std::vector<std::int32_t> ids(g.ids.begin(),
                                                g.ids.begin() + std::ptrdiff_t(g.prompt) + s + 1);
            if (tok.encode(tok.decode(ids)) != ids) odd = s;
        }
        QVERIFY2(odd >= 0, "every step's text encodes back to its ids");
        // Scrub there with the keyboard, then to every step: the scene runs that step's ids.
        panel->stepSlider()->setFocus();
        QTest::keyClick(panel->stepSlider(), Qt::Key_Home);
        for (int s = 0; s < int(g.choices.size()); ++s) {
            if (s > 0) QTest::keyClick(panel->stepSlider(), Qt::Key_Right);
            QCOMPARE(panel->stepSlider()->value(), s);
            test_support::settleAll(w.computeService());
            const std::vector<std::int32_t> ids(g.ids.begin(),
                                                g.ids.begin() + std::ptrdiff_t(g.prompt) + s + 1);
            QCOMPARE(w.scene()->spec().text, tok.decode(ids));
            QVERIFY(w.result()->run);
            QCOMPARE(w.result()->run->ids, ids);
            QCOMPARE(w.result()->query_count(), attn::Index(ids.size()));
            QCOMPARE(w.result()->q_tokens, tok.display_tokens(ids));
            QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), w.scene()->spec()), QString());
        }
        // Generating again from the odd step continues its ids, not its text's encoding.
        QTest::keyClick(panel->stepSlider(), Qt::Key_Home);
        for (int s = 0; s < odd; ++s)
            QTest::keyClick(panel->stepSlider(), Qt::Key_Right);
        test_support::settleAll(w.computeService());
        const std::vector<std::int32_t> from(g.ids.begin(),
                                             g.ids.begin() + std::ptrdiff_t(g.prompt) + odd + 1);
        typeInto(panel->tokensBox(), QStringLiteral("1"));
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        finish(w, panel);
        QCOMPARE(panel->generation().prompt, from.size());
        QCOMPARE(std::vector<std::int32_t>(
                     panel->generation().ids.begin(),
                     panel->generation().ids.begin() + std::ptrdiff_t(from.size())),
                 from);
        // Typing replaces the ids: the edited text is encoded afresh.
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the")), QString());
        QVERIFY(w.scene()->spec().model_ids.empty());
        test_support::settleAll(w.computeService());
        QCOMPARE(w.result()->run->ids, tok.encode("the"));
        w.scene()->undoStack()->setClean();
    }

    /// A control changed while the job runs is applied at the next step: the worker is held
    /// after two steps (LiveOptions::holdAfter, no clock), τ is typed into the Controls dock,
    /// the worker released; steps 0–1 are core's under τ = 1, steps from 2 core's under τ = 3.
    void aControlChangedDuringTheJobAppliesAtTheNextStep() {
        MainWindow w;
        QString error;
        auto* panel = openTiny(w, dir_.path(), &error);
        QVERIFY2(panel, qPrintable(error));
        attn::SceneSpec s = w.scene()->spec();
        s.text = "the cat";
        w.scene()->setSpec(s, QStringLiteral("Edit sentence"));
        test_support::settle(w.computeService());
        const auto folder = w.scene()->spec().model;
        const std::vector<std::int32_t> prompt = folder->tokenizer->encode("the cat");
        typeInto(panel->tokensBox(), QStringLiteral("8"));
        const attn::gen::GenerateOptions before = panel->options();
        // Reads: the start, before step 0, before step 1; held before step 2.
        panel->live().holdAfter(3);
        QSignalSpy steps(panel, &fileio::GeneratePanel::stepAdded);
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(steps.count(), 2, 60000);
        QVERIFY(panel->running());
        QCOMPARE(steps.count(), 2);  // held: no third step came
        typeInto(w.controlsDock()->temperatureBox(), QStringLiteral("3"));
        QCOMPARE(w.scene()->spec().temperature, 3.f);
        QCOMPARE(panel->live().get().controls.temperature, 3.f);
        panel->live().release();
        finish(w, panel);
        QVERIFY(!panel->running());
        const attn::gen::Generation& shown = panel->generation();
        QCOMPARE(shown.choices.size(), std::size_t(8));
        QCOMPARE(shown.run->controls.temperature, 3.f);

        // Core: two steps under τ = 1, the rest under τ = 3.
        const attn::model::Model& model = *folder->model;
        attn::gen::GenerateOptions o = before;
        attn::gen::Generation core = attn::gen::start(model, prompt, o.controls);
        std::vector<attn::gen::Step> made;
        for (int i = 0; i < 8; ++i) {
            if (i == 2) o.controls.temperature = 3.f;
            made.push_back(attn::gen::step(model, core, o));
        }
        QCOMPARE(shown.ids, core.ids);
        for (std::size_t i = 0; i < 8; ++i) {
            QCOMPARE(shown.choices[i].id, made[i].choice.id);
            QVERIFY(std::abs(shown.choices[i].logprob - made[i].choice.logprob) < 1e-5f);
            for (std::size_t k = 0; k < made[i].choice.top.size(); ++k) {
                QCOMPARE(shown.choices[i].top[k].id, made[i].choice.top[k].id);
                QVERIFY(std::abs(shown.choices[i].top[k].logprob - made[i].choice.top[k].logprob) <
                        1e-5f);
            }
        }
        for (std::size_t i = 1; i < core.ids.size(); ++i)
            QVERIFY(std::abs(shown.logprobs[i] - core.logprobs[i]) < 1e-5f);
        // And τ mattered: under τ = 1 throughout, step 2 is chosen from other probabilities.
        attn::gen::Generation plain = attn::gen::start(model, prompt, before.controls);
        attn::gen::Step third;
        for (int i = 0; i < 3; ++i)
            third = attn::gen::step(model, plain, before);
        double moved = 0;  // the model's log-probabilities of the top 10 (greedy keeps 1 at p 1)
        for (std::size_t k = 0; k < third.choice.top.size(); ++k)
            moved += std::abs(double(third.choice.top[k].logprob) - made[2].choice.top[k].logprob);
        QVERIFY2(moved > 1e-3, qPrintable(QString::number(moved)));
        w.scene()->undoStack()->setClean();
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(GeneratePanelTest)
#include "generate_panel_test.moc"
