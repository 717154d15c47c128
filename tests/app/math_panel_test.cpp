// QtTest: the math panel's columns fit their numbers, τ = 0 is worked out as a hard max, and
// long rows page with keyboard-followed links. GPL-3.0-or-later.
#include <QRegularExpression>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocument>

#include "app_test_support.hpp"
#include "views/math_panel.hpp"

namespace {

/// The monospace table of the panel as plain lines.
QStringList tableLines(const QString& html) {
    const qsizetype a = html.indexOf(QStringLiteral("<pre>")),
                    b = html.indexOf(QStringLiteral("</pre>"));
    QTextDocument doc;
    doc.setHtml(html.mid(a, b - a + 6));
    return doc.toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

/// Loaded raw scores with long numbers: −12.4244 needs 8 characters, −123.4567 needs 9.
attn::SceneSpec wideScores() {
    auto data = std::make_shared<attn::AttentionData>();
    attn::AttentionComponent c;
    c.q_tokens = {"a", "b"};
    c.k_tokens = {"x", "y", "z"};
    c.layers = c.heads = 1;
    attn::Matrix m(2, 3);
    m << -12.4244f, -123.4567f, 3.f, 1.f, 2.f, 3.f;
    c.mats = {m};
    c.are_scores = true;
    c.d_k = 1;
    data->components = {c};
    attn::SceneSpec s;
    s.data = data;
    s.scale = false;
    return s;
}

}  // namespace

class MathPanelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void columnsAreAsWideAsTheirNumbers() {
        const attn::SceneResult r = attn::compute_scene(wideScores());
        const QString html = mathHtml(r, Selection{0, 1, 0}, MathContext{});
        const QStringList lines = tableLines(html);
        QCOMPARE(lines.size(), 4);  // header + 3 keys
        QVERIFY(!html.contains(QStringLiteral("-12.4244-")));
        // Every row splits into the same columns, and the numbers read back exactly.
        const QRegularExpression gap(QStringLiteral("\\s{2,}"));
        for (int i = 1; i < lines.size(); ++i) {
            const QStringList cells = lines[i].trimmed().split(gap);
            QCOMPARE(cells.size(), 6);  // j, key, s, scaled, masked, weight
        }
        const QStringList row1 = lines[2].trimmed().split(gap);
        QCOMPARE(row1[2], QStringLiteral("-123.4567"));
        QCOMPARE(row1[3], QStringLiteral("-123.4567"));
        // Right-aligned: every line has the same length, the columns line up.
        for (const QString& line : lines)
            QCOMPARE(line.size(), lines[0].size());
    }

    void hardMaxIsWorkedOutAsAHardMax() {
        attn::SceneSpec s;
        s.temperature = 0;
        const attn::SceneResult r = attn::compute_scene(s);
        const int q = 3;
        int winner = 0;
        r.heads[0].weights.row(q).maxCoeff(&winner);
        const QString html = mathHtml(r, Selection{q, -1, 0}, MathContext{s.score, 0.f, QString()});
        QVERIFY(html.contains(QStringLiteral("Hard max")));
        QVERIFY(!html.contains(QStringLiteral("exp(m")));  // not the τ = 1 softmax
        const Eigen::RowVectorXf masked = r.masked_row(0, q);
        QVERIFY(html.contains(mathNumber(masked.maxCoeff())));
        QVERIFY(html.contains(QStringLiteral("c = 1 (key %1 ").arg(winner + 1)));
        QVERIFY(html.contains(QStringLiteral("α = 1.0000")));
    }

    void softCapIsAStageOfItsOwn() {
        // A synthetic scene whose head 0 soft-caps at 2 (Gemma 2's attn_logit_softcapping,
        // smaller so that it bends these scores): the stages Gemma 2's layers would report.
        attn::SceneSpec s;
        attn::SceneResult r = attn::compute_scene(s);
        attn::AttentionParams p;
        p.mask = s.mask;
        p.softcap = 2.f;
        attn::HeadResult capped = attn::attend_scores(r.heads[0].raw, float(r.d_k), p);
        capped.output = r.heads[0].output;
        r.heads[0] = std::move(capped);
        const int q = 2;
        const QString html = mathHtml(r, Selection{q, -1, 0}, MathContext{s.score, 1.f, QString()});
        QVERIFY(html.contains(QStringLiteral("score → scaled → soft-capped → masked → softmax")));
        const QStringList lines = tableLines(html);
        const QRegularExpression gap(QStringLiteral("\\s{2,}"));
        const QStringList header = lines[0].trimmed().split(gap);
        QCOMPARE(header.size(), 7);  // j, key, s, scaled, soft-capped, masked, weight
        QCOMPARE(header[4], QStringLiteral("soft-capped"));
        // Each key's soft-capped score is 2 · tanh(scaled / 2), computed here in double.
        const Eigen::RowVectorXf scaled = r.scaled_row(0, q);
        for (int k = 0; k + 1 < lines.size(); ++k) {
            const QStringList cells = lines[k + 1].trimmed().split(gap);
            QCOMPARE(cells.size(), 7);
            const int j = cells[0].toInt() - 1;
            QCOMPARE(cells[4], mathNumber(2.0 * std::tanh(double(scaled(j)) / 2.0)));
        }
        // A head without soft-capping keeps its four score columns.
        const QString plain =
            mathHtml(r, Selection{q, -1, 1}, MathContext{s.score, 1.f, QString()});
        QVERIFY(!plain.contains(QStringLiteral("soft-capped")));
        QCOMPARE(tableLines(plain)[0].trimmed().split(gap).size(), 6);
    }

    void longRowsPageAndShowEveryKey() {
        attn::SceneSpec s;
        QStringList words;
        for (int i = 0; i < 100; ++i)
            words << QStringLiteral("w%1").arg(i);
        s.text = words.join(QLatin1Char(' ')).toStdString();
        auto r = std::make_shared<const attn::SceneResult>(attn::compute_scene(s));
        MathPanel panel;
        panel.resize(500, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setContext(MathContext{});
        panel.setResult(r);
        panel.setSelection(Selection{50, -1, 0});
        QVERIFY(panel.toHtml().contains(QStringLiteral("the 64 largest of 100 keys")));
        QCOMPARE(tableLines(mathHtml(*r, Selection{50, -1, 0}, MathContext{})).size(), 65);
        // The keyboard walks the links like a browser: Tab to the first, Enter follows it.
        panel.setFocus();
        QTest::keyClick(&panel, Qt::Key_Tab);
        QTest::keyClick(&panel, Qt::Key_Return);
        QCOMPARE(panel.page().page, 0);
        QString page = mathHtml(*r, Selection{50, -1, 0}, MathContext{}, 64, panel.page());
        QVERIFY(page.contains(QStringLiteral("keys 1–64 of 100 (page 1 of 2)")));
        panel.followLink(QStringLiteral("attn:page:1"));
        page = mathHtml(*r, Selection{50, -1, 0}, MathContext{}, 64, panel.page());
        const QStringList lines = tableLines(page);
        QCOMPARE(lines.size(), 37);  // keys 65…100 (from 1)
        QVERIFY(lines[1].trimmed().startsWith(QStringLiteral("65")));
        QVERIFY(lines.last().trimmed().startsWith(QStringLiteral("100")));
        // Every listed key's k_j and v_j on demand.
        QVERIFY(!page.contains(QStringLiteral("k<sub>70</sub>")));
        panel.followLink(QLatin1String(kMathLinkKeys));
        page = mathHtml(*r, Selection{50, -1, 0}, MathContext{}, 64, panel.page());
        for (int k = 65; k <= 100; ++k)  // from 1, as the table's keys
            QVERIFY(page.contains(QStringLiteral("k<sub>%1</sub>").arg(k)));
        // Another query starts on its largest weights again.
        panel.setSelection(Selection{10, -1, 0});
        QCOMPARE(panel.page().page, -1);
    }

    void blockRowsSayWhyTheyDoNotSumToOne() {
        auto data = std::make_shared<attn::AttentionData>();
        attn::AttentionComponent c;
        c.name = "ab";
        c.q_tokens = {"A1", "A2"};
        c.k_tokens = {"B1"};
        c.layers = c.heads = 1;
        attn::Matrix m(2, 1);
        m << 0.25f, 0.5f;
        c.mats.push_back(m);  // not = {m}: GCC 12 -O3 SSE2 (portable) warns falsely on it
        data->components = {c};
        attn::SceneSpec s;
        s.data = data;
        const attn::SceneResult r = attn::compute_scene(s);
        const QString html =
            mathHtml(r, Selection{0, -1, 0}, MathContext{{}, 1.f, QStringLiteral("a block")});
        QVERIFY(html.contains(QStringLiteral("Σ α<sub>j</sub> = 0.2500 — below 1 here: a block")));
    }
};

QTEST_MAIN(MathPanelTest)
#include "math_panel_test.moc"
