// QtTest: the Alignment lens on real-shaped Marian cross-attention (tests/data/marian). Special
// tokens ("</s>", "<pad>") are shown as text, never read as markup, in the lens and everywhere
// else in the window; the hard alignment is a list, one "target → source" pair a line, checked
// against an argmax worked out here from the JSON itself; the explanation says what is loaded
// (not the untrained model's story); the source and target boxes show the loaded tokens, and
// the typed sentences come back with the synthetic scene. Real events pick a head.
#include <QComboBox>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>
#include <QTextDocument>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "lenses/lens_panel.hpp"

namespace {

const QString kMarian = QStringLiteral(ATTN_FIXTURES_DIR "/../marian/marian_en_de_cross.json");

/// What a label shows: its text, rendered when Qt reads it as rich text.
QString shownText(const QLabel* label) {
    const bool rich = label->textFormat() == Qt::RichText ||
                      (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
    if (!rich) return label->text();
    QTextDocument doc;
    doc.setHtml(label->text());
    return doc.toPlainText();
}

/// The "Cross" component of the fixture, read here with Qt's JSON (not the app's loader).
struct Cross {
    QStringList dec, enc;
    QJsonArray attn;  ///< [layer][head][dec][enc]
};

Cross readCross() {
    QFile f(kMarian);
    if (!f.open(QIODevice::ReadOnly)) qFatal("fixture missing: %s", qPrintable(kMarian));
    const QJsonArray comps =
        QJsonDocument::fromJson(f.readAll())[QStringLiteral("attention")].toArray();
    for (const QJsonValue& c : comps)
        if (c[QStringLiteral("name")].toString() == QLatin1StringView("Cross")) {
            Cross out;
            for (const QJsonValue& t : c[QStringLiteral("left_text")].toArray())
                out.dec << t.toString();
            for (const QJsonValue& t : c[QStringLiteral("right_text")].toArray())
                out.enc << t.toString();
            out.attn = c[QStringLiteral("attn")].toArray();
            return out;
        }
    qFatal("no Cross component in %s", qPrintable(kMarian));
}

/// "target → source" per decoder token at layer 0: argmax of head `head` (−1: the heads' mean).
QStringList expectedPairs(const Cross& c, int head) {
    const QJsonArray heads = c.attn[0].toArray();
    QStringList out;
    for (int i = 0; i < c.dec.size(); ++i) {
        int best = 0;
        double bestW = -1;
        for (int j = 0; j < c.enc.size(); ++j) {
            double w = 0;
            for (int h = 0; h < heads.size(); ++h)
                if (head < 0 || h == head) w += heads[h][i][j].toDouble();
            if (w > bestW) bestW = w, best = j;
        }
        out << c.dec[i] + QStringLiteral(" → ") + c.enc[best];
    }
    return out;
}

}  // namespace

class AlignmentLoadedTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeAlignmentLoadedTest"));
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }

    void lensShowsTheLoadedCrossAttention() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        auto* lens = openLens(w);
        auto* source = lens->findChild<QLineEdit*>(QStringLiteral("alignmentSource"));
        const QString typed = source->text();  // the untrained model's sentence, kept
        QVERIFY(lens->explanationText().contains(QStringLiteral("untrained")));

        auto* files = w.findChild<fileio::FileController*>();
        files->setQuiet(true);
        QVERIFY(files->openFile(kMarian));
        test_support::settleAll(w.computeService());
        const Cross cross = readCross();

        // The explanation describes the file, not the synthetic model.
        const QString idea = lens->explanationText();
        QVERIFY2(idea.contains(QStringLiteral("marian_en_de_cross.json")), qPrintable(idea));
        QVERIFY2(idea.contains(QStringLiteral("layer 1 of 6, 8 heads")), qPrintable(idea));
        QVERIFY2(!idea.contains(QStringLiteral("hashed")) &&
                     !idea.contains(QStringLiteral("This model is untrained")),
                 qPrintable(idea));
        QVERIFY(idea.contains(QStringLiteral("such as </s>")));
        // The boxes: the loaded tokens (whole, "</s>" and "<pad>" as text); typed rows hidden
        // and left as they were (a session keeps the user's sentence).
        auto* loadedSource = lens->findChild<QLabel*>(QStringLiteral("alignmentLoadedSource"));
        auto* loadedTarget = lens->findChild<QLabel*>(QStringLiteral("alignmentLoadedTarget"));
        auto* loadedScore = lens->findChild<QLabel*>(QStringLiteral("alignmentLoadedScore"));
        QVERIFY(loadedSource->isVisible() && loadedTarget->isVisible() && loadedScore->isVisible());
        QCOMPARE(shownText(loadedSource), cross.enc.join(QStringLiteral(" · ")));
        QCOMPARE(shownText(loadedTarget), cross.dec.join(QStringLiteral(" · ")));
        QVERIFY(shownText(loadedTarget).startsWith(QStringLiteral("<pad> · ▁Sie")));
        QVERIFY(shownText(loadedScore).contains(QStringLiteral("the file's own weights")));
        QVERIFY(!source->isVisible());
        QCOMPARE(source->text(), typed);
        QVERIFY(!lens->findChild<QComboBox*>(QStringLiteral("score"))->isVisible());

        // The hard alignment: one pair a line, as worked out from the JSON.
        checkPairs(lens, expectedPairs(cross, -1), QStringLiteral("mean of 8 heads"));
        const QString readout = lens->readoutText();
        QVERIFY(readout.contains(QStringLiteral("<pad> → ▁She")));
        QVERIFY(readout.contains(QStringLiteral("</s> → </s>")));
        QVERIFY(
            readout.contains(QStringLiteral("9 × 8 target × source tokens; the file's weights")));

        // A head picked with the keyboard: its own argmax.
        auto* head = lens->findChild<QComboBox*>(QStringLiteral("head"));
        head->setFocus();
        QTest::keyClick(head, Qt::Key_Down);
        QCOMPARE(head->currentIndex(), 1);
        test_support::settleAll(w.computeService());
        checkPairs(lens, expectedPairs(cross, 0), QStringLiteral("head 1"));
        QTest::keyClick(head, Qt::Key_Down);
        QTest::keyClick(head, Qt::Key_Down);
        QTest::keyClick(head, Qt::Key_Down);  // head 4: parked on </s>
        test_support::settleAll(w.computeService());
        const QStringList parked = expectedPairs(cross, 3);
        QVERIFY(parked.count(QStringLiteral("▁Sie → </s>")) == 1);
        checkPairs(lens, parked, QStringLiteral("head 4"));

        noTokenIsMarkup(w);

        // Back on the synthetic scene: the typed sentences and the untrained model's story.
        w.scene()->setSpec(attn::SceneSpec{}, QStringLiteral("synthetic"));
        test_support::settleAll(w.computeService());
        QVERIFY(source->isVisible() && !loadedSource->isVisible());
        QCOMPARE(source->text(), typed);
        QVERIFY(lens->explanationText().contains(QStringLiteral("This model is untrained")));
        QVERIFY(lens->readoutText().contains(QStringLiteral("score: additive (Bahdanau)")));
        w.scene()->undoStack()->setClean();
    }

    // Every tab of the window on the Marian file: no rich-text label holds a raw special token
    // (it would vanish or restyle the rest of the text); the math panel shows "</s>" as text.
    void tokensAreNeverMarkupAnywhere() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        auto* files = w.findChild<fileio::FileController*>();
        files->setQuiet(true);
        QVERIFY(files->openFile(kMarian));
        test_support::settleAll(w.computeService());
        w.scene()->setSelection(Selection{0, 7, 0});  // the encoder's "</s>"
        for (int i = 0; i < w.tabs()->count(); ++i) {
            w.tabs()->setCurrentIndex(i);
            test_support::settleAll(w.computeService());
            noTokenIsMarkup(w);
        }
        bool shown = false;
        for (QLabel* l : w.findChildren<QLabel*>())
            shown = shown || (l->isVisible() && shownText(l).contains(QStringLiteral("</s>")));
        QVERIFY2(shown, "no label shows the token </s>");
        w.scene()->undoStack()->setClean();
    }

  private:
    LensPanel* openLens(MainWindow& w) {
        auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        auto* lens = w.findChild<LensPanel*>(QStringLiteral("lens_alignment"));
        w.tabs()->setCurrentWidget(theory);
        theory->setCurrentWidget(lens);
        test_support::settleAll(w.computeService());
        return lens;
    }

    void checkPairs(LensPanel* lens, const QStringList& pairs, const QString& heads) {
        const QString readout = lens->readoutText();
        QVERIFY2(readout.contains(heads), qPrintable(readout));
        const QString list = readout.section(QStringLiteral("target → source:\n"), 1).trimmed();
        QCOMPARE(list.split(QLatin1Char('\n')), pairs);
    }

    void noTokenIsMarkup(MainWindow& w) {
        for (QLabel* l : w.findChildren<QLabel*>()) {
            if (!l->isVisible()) continue;
            const bool rich = l->textFormat() == Qt::RichText ||
                              (l->textFormat() == Qt::AutoText && Qt::mightBeRichText(l->text()));
            if (!rich) continue;
            for (const char* raw : {"</s>", "<pad>"})
                QVERIFY2(!l->text().contains(QLatin1String(raw)),
                         qPrintable(l->objectName() + QStringLiteral(": ") + l->text()));
        }
    }
};

QTEST_MAIN(AlignmentLoadedTest)
#include "alignment_loaded_test.moc"
