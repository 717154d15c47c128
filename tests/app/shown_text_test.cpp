// QtTest: probabilities read by one rule in every list (the Model dock's prediction, the
// attribution's token list, the generation's candidates: 0.009 %, "<0.001 %", never 0.0 % for a
// token that has a probability), and a right-to-left token keeps its row in order: on a tiny
// Qwen2 folder whose vocabulary is Arabic words, each list row and the sentence's token line,
// laid out left to right as lists and labels lay them out, keep the token before its
// percentage and the tokens in their reading order (U+2068/U+2069 isolate each token).
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTextLayout>
#include <QtTest>
#include <cmath>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/generate_panel.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "tiny_folders.hpp"
#include "views/attribution_view.hpp"
#include "views/interventions_tab.hpp"
#include "views/next_tokens_view.hpp"
#include "views/shown_text.hpp"
#include "widgets/tab_strip.hpp"
#include "widgets/token_editor.hpp"

namespace {

const QString kLetters = QStringLiteral("ابتثجحخدذرزسشصضطظعغفقكلمنهوي");

/// The tiny folder's placeholder words w12…w47 renamed to two Arabic letters each, "cat" and
/// "dog" to قطة and كلب: "" when rewritten, else why not.
QString arabicVocabulary(const QString& dir) {
    QFile f(dir + QStringLiteral("/tokenizer.json"));
    if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("no tokenizer.json");
    QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    f.close();
    QJsonObject model = root.value(QStringLiteral("model")).toObject();
    const QJsonObject vocab = model.value(QStringLiteral("vocab")).toObject();
    QJsonObject renamed;
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
        QString word = it.key();
        const int id = it.value().toInt();
        if (word == QStringLiteral("cat"))
            word = QStringLiteral("قطة");
        else if (word == QStringLiteral("dog"))
            word = QStringLiteral("كلب");
        else if (word.startsWith(QLatin1Char('w')))
            word = QString(kLetters[id % 28]) + kLetters[id / 28];
        renamed.insert(word, id);
    }
    model.insert(QStringLiteral("vocab"), renamed);
    root.insert(QStringLiteral("model"), model);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return QStringLiteral("not writable");
    f.write(QJsonDocument(root).toJson());
    return {};
}

/// The x extent, in a left-to-right line as lists and labels lay one out, of the characters
/// [from, from + count) of TEXT.
std::pair<double, double> extent(const QString& text, int from, int count, const QFont& font) {
    QTextLayout layout(text, font);
    QTextOption o;
    o.setTextDirection(Qt::LeftToRight);
    layout.setTextOption(o);
    layout.beginLayout();
    QTextLine line = layout.createLine();
    line.setLineWidth(100000);
    layout.endLayout();
    double lo = 1e9, hi = -1e9;
    for (int i = from; i <= from + count; ++i) {
        const double x = line.cursorToX(i);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    return {lo, hi};
}

/// Why A does not read left of B in TEXT (both found in it; B searched after A), or "".
QString readsBefore(const QString& text, const QString& a, const QString& b, const QFont& font) {
    const int ia = text.indexOf(a), ib = text.indexOf(b, ia + a.size());
    if (ia < 0 || ib < 0) return QStringLiteral("“%1” or “%2” missing in %3").arg(a, b, text);
    const auto ea = extent(text, ia, int(a.size()), font);
    const auto eb = extent(text, ib, int(b.size()), font);
    if (ea.second <= eb.first + 0.5) return {};
    return QStringLiteral("%1 (x %2–%3) is drawn right of %4 (x %5–%6) in “%7”")
        .arg(a)
        .arg(ea.first)
        .arg(ea.second)
        .arg(b)
        .arg(eb.first)
        .arg(eb.second)
        .arg(text);
}

/// Types TEXT into W's sentence box key by key, as a user with an Arabic keyboard layout does
/// (QTest::keyClicks takes ASCII only): "" once the scene runs TEXT, else what it runs.
QString typeAnySentence(MainWindow& w, const QString& text) {
    QPlainTextEdit* edit = w.tokenEditor()->editor();
    QTest::mouseClick(edit->viewport(), Qt::LeftButton);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    for (const QChar c : text)
        QTest::sendKeyEvent(QTest::Click, edit, Qt::Key_unknown, QString(c), Qt::NoModifier);
    const std::string want = text.toStdString();
    if (!QTest::qWaitFor([&] { return w.scene()->spec().text == want; }, 20000))
        return QString::fromStdString(w.scene()->spec().text);
    test_support::settle(w.computeService());
    return {};
}

}  // namespace

class ShownTextTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(dir_.isValid());
        QString error = test_support::writeTinyLlama(dir_.path(), QStringLiteral("qwen2"));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = arabicVocabulary(dir_.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void oneRuleForProbabilities() {
        QCOMPARE(percentText(0.5), QStringLiteral("50.0 %"));
        QCOMPARE(percentText(0.0123), QStringLiteral("1.2 %"));
        QCOMPARE(percentText(0.004), QStringLiteral("0.4 %"));
        QCOMPARE(percentText(0.0004), QStringLiteral("0.04 %"));
        QCOMPARE(percentText(0.00009), QStringLiteral("0.009 %"));
        QCOMPARE(percentText(0.000004), QStringLiteral("<0.001 %"));
        QCOMPARE(percentText(0.0), QStringLiteral("0 %"));
        QCOMPARE(percentText(1.0), QStringLiteral("100.0 %"));
    }

    // Each test opens the folder with the Arabic sentence typed, so that each fails on its own.
    void tokenLineReadsInOrder() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QVERIFY2(models->openModel(dir_.path()), qPrintable(models->lastError()));
        const QString sentence = QStringLiteral("the قطة كلب");
        const QString typed = typeAnySentence(w, sentence);
        QVERIFY2(typed.isEmpty(), qPrintable(typed));

        // The sentence's token line: the, قطة, كلب in reading order.
        auto* preview = w.tokenEditor()->findChild<QLabel*>();
        QVERIFY(preview);
        const QString line = preview->toolTip();
        QString why =
            readsBefore(line, QStringLiteral("the"), QStringLiteral("قطة"), preview->font());
        QVERIFY2(why.isEmpty(), qPrintable(why));
        why = readsBefore(line, QStringLiteral("قطة"), QStringLiteral("كلب"), preview->font());
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }

    void predictionAndAttributionRowsReadInOrder() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QVERIFY2(models->openModel(dir_.path()), qPrintable(models->lastError()));
        const QString sentence = QStringLiteral("the قطة كلب");
        const QString typed = typeAnySentence(w, sentence);
        QVERIFY2(typed.isEmpty(), qPrintable(typed));
        QString why;

        // The Model dock's prediction: each row's token before its percentage, by the rule.
        NextTokensView* next = models->dock()->nextTokens();
        QTRY_COMPARE_WITH_TIMEOUT(int(next->tokens().size()), 10, 30000);
        int arabic = 0;
        for (int i = 0; i < 10; ++i) {
            const attn::NextToken& t = next->tokens()[std::size_t(i)];
            const QString token = QString::fromStdString(t.text), row = next->rowText(i);
            const QString percent = percentText(double(t.probability));
            arabic += kLetters.contains(token.left(1));
            why = readsBefore(row, token, percent, next->font());
            QVERIFY2(why.isEmpty(), qPrintable(why));
        }
        QVERIFY(arabic > 0);  // the rows do hold right-to-left tokens

        // The attribution's token list: the same rows as the Model dock, token first.
        QVERIFY(w.findChild<TabStrip*>());
        QTabBar* bar = w.findChild<TabStrip*>()->bar();
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i).remove(QLatin1Char('&')) == QStringLiteral("Interventions"))
                QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(i).center());
        auto* tab = w.findChild<InterventionsTab*>();
        QVERIFY(tab);
        QTabBar* pages = tab->pages()->tabBar();
        for (int i = 0; i < pages->count(); ++i)
            if (pages->tabText(i).remove(QLatin1Char('&')) == QStringLiteral("Attribution"))
                QTest::mouseClick(pages, Qt::LeftButton, {}, pages->tabRect(i).center());
        QListWidget* top = tab->attribution()->topTokens();
        QTRY_COMPARE_WITH_TIMEOUT(top->count(), 10, 30000);
        for (int i = 0; i < 10; ++i) {
            const attn::NextToken& t = next->tokens()[std::size_t(i)];
            const QString row = top->item(i)->text();
            QCOMPARE(row, next->rowText(i));
            why = readsBefore(row, QString::fromStdString(t.text),
                              percentText(double(t.probability)), top->font());
            QVERIFY2(why.isEmpty(), qPrintable(why));
        }
    }

    void candidatesFollowTheRule() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QVERIFY2(models->openModel(dir_.path()), qPrintable(models->lastError()));
        const QString sentence = QStringLiteral("the قطة كلب");
        const QString typed = typeAnySentence(w, sentence);
        QVERIFY2(typed.isEmpty(), qPrintable(typed));
        QString why;
        auto* folder = w.scene()->spec().model.get();

        // One sampled token at temperature 0.05: the candidates' probabilities under the
        // sampling settings are tiny, and read as such, never as 0.0 %.
        auto* panel = w.findChild<fileio::GeneratePanel*>();
        QVERIFY(panel);
        panel->tokensBox()->setValue(1);
        panel->greedyBox()->setChecked(false);
        panel->temperatureBox()->setValue(0.05);
        QTest::mouseClick(panel->generateButton(), Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return !panel->running(); }, 30000));
        Scheduler::instance().waitForIdle(panel);
        QCoreApplication::processEvents();
        QCOMPARE(panel->generation().choices.size(), std::size_t(1));
        const attn::gen::Choice& c = panel->generation().choices.front();
        QCOMPARE(panel->distribution()->count(), int(c.top.size()));
        // First the numbers of every row, then their reading order.
        int tiny = 0;
        for (int i = 0; i < panel->distribution()->count(); ++i) {
            const attn::gen::Candidate& k = c.top[std::size_t(i)];
            const QString row = panel->distribution()->item(i)->text();
            const QString sampled = percentText(double(k.probability));
            const QString model = percentText(std::exp(double(k.logprob)));
            tiny += k.probability > 0 && k.probability < 5e-4f;
            QVERIFY2(!row.contains(QStringLiteral(" 0.0 %")), qPrintable(row));
            QVERIFY2(row.contains(QStringLiteral("  ") + sampled + QStringLiteral("  (model ") +
                                  model + QStringLiteral(")")),
                     qPrintable(row));
        }
        for (int i = 0; i < panel->distribution()->count(); ++i) {
            const attn::gen::Candidate& k = c.top[std::size_t(i)];
            const QString row = panel->distribution()->item(i)->text();
            why = readsBefore(row, QString::fromStdString(folder->tokenizer->token_text(k.id)),
                              percentText(double(k.probability)), panel->distribution()->font());
            QVERIFY2(why.isEmpty(), qPrintable(why));
        }
        QVERIFY(tiny > 0);  // the case that read 0.0 % is there
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(ShownTextTest)
#include "shown_text_test.moc"
