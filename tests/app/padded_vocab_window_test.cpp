// QtTest: a model whose embedding has more rows than its tokenizer has tokens, as real Qwen
// checkpoints have (151 936 rows, 151 669 tokens), in the window with real events. The tiny
// Qwen2 folder (tests/core/llama_tiny.py --tokens 40) has 48 rows and a tokenizer of 40 ids, and
// its 8 padding rows are made the likeliest ids at every position: the Model dock's top 10 and
// the logit lens list none of them, greedy generation of 8 tokens in the Generate panel finishes
// with the window alive, every chosen token is a real one, equal to core's generation, and no
// candidate shown is a padding id; the Interventions tab's logit lens shows none either.
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/generate/generate.hpp"
#include "attn/interventions/lens.hpp"
#include "attn/models/vocabulary.hpp"
#include "io/generate_panel.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "tiny_folders.hpp"
#include "views/cell_map.hpp"
#include "views/interventions_tab.hpp"
#include "views/logit_lens_view.hpp"
#include "views/next_tokens_view.hpp"
#include "widgets/alert_banner.hpp"
#include "widgets/tab_strip.hpp"

namespace {

constexpr int kTokens = 40;  // the tokenizer's ids; the model has 48 rows

}  // namespace

class PaddedVocabWindowTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(dir_.isValid());
        const QString error =
            test_support::writeTinyFolder(ATTN_LLAMA_TINY, dir_.path(),
                                          {QStringLiteral("11"), QStringLiteral("qwen2"),
                                           QStringLiteral("--tokens"), QString::number(kTokens)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void generationNeverPicksAPaddingId() {
        MainWindow w;
        const QString opened = openAndType(w);
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        const auto folder = w.scene()->spec().model;
        QCOMPARE(folder->model->info().vocab, 48);
        QCOMPARE(attn::model::text_vocab(folder->model->info()), kTokens);

        // The Model dock's next tokens: ten real tokens, the likeliest real one first.
        auto* dock = w.findChild<fileio::ModelDock*>();
        QVERIFY(dock);
        const std::vector<attn::NextToken>& next = dock->nextTokens()->tokens();
        QCOMPARE(next.size(), std::size_t(10));
        for (const attn::NextToken& t : next) {
            QVERIFY2(t.id < kTokens, qPrintable(QString::number(t.id)));
            QVERIFY(!QString::fromStdString(t.text).startsWith(QStringLiteral("<id")));
        }

        // Greedy, 8 tokens: typed, then a click on Generate.
        auto* panel = w.findChild<fileio::GeneratePanel*>();
        QVERIFY(panel);
        panel->tokensBox()->setFocus();
        panel->tokensBox()->selectAll();
        QTest::keyClicks(panel->tokensBox(), QStringLiteral("8"));
        QTest::keyClick(panel->tokensBox(), Qt::Key_Return);
        QVERIFY(panel->greedyBox()->isChecked());
        QSignalSpy steps(panel, &fileio::GeneratePanel::stepAdded);
        QSignalSpy done(panel, &fileio::GeneratePanel::finished);
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return done.count() == 1; }, 60000));
        Scheduler::instance().waitForIdle(panel);
        QCoreApplication::processEvents();
        test_support::settleAll(w.computeService());

        QVERIFY(w.isVisible());
        QVERIFY(!panel->running());
        QCOMPARE(steps.count(), 8);
        QCOMPARE(w.errorBanner()->message(), QString());
        // What core generates with the panel's options: real tokens only.
        attn::gen::GenerateOptions o = panel->options();
        o.tokens = 8;
        const std::vector<std::int32_t> prompt = folder->tokenizer->encode("the cat sat on");
        const attn::gen::Generation core =
            attn::gen::generate(*folder->model, *folder->tokenizer, prompt, o);
        QCOMPARE(panel->generation().ids, core.ids);
        for (const attn::gen::Choice& c : panel->generation().choices) {
            QVERIFY2(c.id < kTokens, qPrintable(QString::number(c.id)));
            for (const attn::gen::Candidate& k : c.top)
                QVERIFY2(k.id < kTokens, qPrintable(QString::number(k.id)));
        }
        // The last step's candidates as shown: ten, none of them a padding id.
        QCOMPARE(panel->distribution()->count(), 10);
        for (int i = 0; i < panel->distribution()->count(); ++i)
            QVERIFY2(!panel->distribution()->item(i)->text().contains(QStringLiteral("<id")),
                     qPrintable(panel->distribution()->item(i)->text()));
        // The sentence is the generated text, and the Model dock predicts after it.
        QCOMPARE(w.scene()->spec().text, folder->tokenizer->decode(core.ids));
        for (const attn::NextToken& t : dock->nextTokens()->tokens())
            QVERIFY2(t.id < kTokens, qPrintable(QString::number(t.id)));
    }

    void theLogitLensListsNoPaddingId() {
        MainWindow w;
        const QString opened = openAndType(w);
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        auto* tab = w.findChild<InterventionsTab*>();
        QVERIFY(tab);
        QVERIFY(clickTitled(w.findChild<TabStrip*>()->bar(), QStringLiteral("Interventions")));
        QTRY_COMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(tab));
        QVERIFY(clickTitled(tab->pages()->tabBar(), QStringLiteral("Logit lens")));
        LogitLensView* view = tab->lens();
        QVERIFY(QTest::qWaitFor([&] { return !view->table().cells.empty(); }, 30000));
        // Every cell's top 5 are real tokens, and the cells' texts name them.
        const attn::interv::LensTable& table = view->table();
        QCOMPARE(table.layers, attn::Index(3));  // after the embedding and each of 2 layers
        for (const attn::interv::LensCell& cell : table.cells)
            for (const std::int32_t id : cell.ids)
                QVERIFY2(id < kTokens, qPrintable(QString::number(id)));
        for (const QString& text : view->map()->texts())
            QVERIFY2(!text.contains(QStringLiteral("<id")), qPrintable(text));
        QCOMPARE(w.errorBanner()->message(), QString());
    }

  private:
    /// W with the data I/O attached and shown, the padded folder opened and "the cat sat on"
    /// typed: "" when done, else what went wrong.
    QString openAndType(MainWindow& w) const {
        fileio::ModelController* models = test_support::attachQuietModels(w);
        if (!models) return QStringLiteral("no model controller");
        if (!models->openModel(dir_.path())) return models->lastError();
        return test_support::typeSentence(w, QStringLiteral("the cat sat on"));
    }
    /// Clicks the tab of BAR titled TITLE, as a user does; false when there is none.
    static bool clickTitled(QTabBar* bar, const QString& title) {
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i).remove(QLatin1Char('&')) == title) {
                test_support::clickTab(bar, i);
                return true;
            }
        return false;
    }

    QTemporaryDir dir_;
};

QTEST_MAIN(PaddedVocabWindowTest)
#include "padded_vocab_window_test.moc"
