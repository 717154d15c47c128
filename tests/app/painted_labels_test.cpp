// QtTest: texts painted by hand stay readable at 1280×800 and 1920×1080 (ctest
// app.painted_labels_test_2x runs it at 192 dpi). The attribution's bars of a 24-layer tiny
// Qwen2 folder: every bar labelled, no two labels (or numbers) overlap, each text fits its row.
// The Model tab's grid: a 24-layer folder's layer labels are a line of text tall ("Layer", not
// a clipped "Laver"); 14 heads in 2 key/value groups are labelled "KV 1", "KV 2" and the colour
// ramp covers none of them; no two labels overlap and each fits its rectangle.
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/model_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/attribution_view.hpp"
#include "views/cell_map.hpp"
#include "views/interventions_tab.hpp"
#include "views/model_grid.hpp"
#include "views/model_grid_canvas.hpp"
#include "widgets/tab_strip.hpp"

namespace {

constexpr double kSlack = 1;  // rounding of fractional font metrics

/// Whether A and B share more than a sliver (touching rectangles do not overlap).
bool overlap(const QRectF& a, const QRectF& b) {
    const QRectF i = a.intersected(b);
    return i.width() > kSlack && i.height() > kSlack;
}

/// Why TEXT does not fit RECT in FONT, or "".
QString misfit(const QString& text, const QRectF& rect, const QFont& font) {
    const QFontMetricsF fm(font);
    if (fm.horizontalAdvance(text) <= rect.width() + kSlack &&
        fm.height() <= rect.height() + kSlack)
        return {};
    return QStringLiteral("“%1” needs %2 × %3 px in %4 × %5")
        .arg(text)
        .arg(fm.horizontalAdvance(text))
        .arg(fm.height())
        .arg(rect.width())
        .arg(rect.height());
}

/// What of CANVAS's painted labels overlaps, is cut or leaves it, or "".
QString canvasProblems(const ModelGridCanvas* canvas) {
    QStringList out;
    const std::vector<ModelGridCanvas::Label> labels = canvas->labels();
    QFont bold = canvas->font();
    bold.setBold(true);
    const QRectF inside = QRectF(canvas->rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const ModelGridCanvas::Label& a = labels[i];
        const QString why = misfit(a.text, a.rect, a.bold ? bold : canvas->font());
        if (!why.isEmpty()) out << why;
        if (!inside.contains(a.rect)) out << QStringLiteral("“%1” leaves the canvas").arg(a.text);
        if (overlap(a.rect, canvas->legendRamp()))
            out << QStringLiteral("the colour ramp covers “%1”").arg(a.text);
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            if (overlap(a.rect, labels[j].rect))
                out << QStringLiteral("“%1” overlaps “%2”").arg(a.text, labels[j].text);
    }
    return out.join(QStringLiteral("; "));
}

ModelGridCanvas* showModelTab(MainWindow& w) {
    for (int i = 0; i < w.tabs()->count(); ++i)
        if (w.tabs()->tabText(i).remove(QLatin1Char('&')) == QStringLiteral("Model"))
            test_support::clickTab(w.tabs()->tabBar(), i);
    auto* grid = w.findChild<ModelGrid*>();
    return grid ? grid->findChild<ModelGridCanvas*>() : nullptr;
}

}  // namespace

class PaintedLabelsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(dir_.isValid());
        const QString error =
            test_support::writeTinyFolder(ATTN_LLAMA_TINY, dir_.path(),
                                          {QStringLiteral("11"), QStringLiteral("qwen2"),
                                           QStringLiteral("--layers"), QStringLiteral("24")});
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void attributionBarsAreReadable_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void attributionBarsAreReadable() {
        QFETCH(QSize, size);
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        w.resize(size);
        QVERIFY2(models->openModel(dir_.path()), qPrintable(models->lastError()));
        const QString typed = test_support::typeSentence(w, QStringLiteral("the cat sat"));
        QVERIFY2(typed.isEmpty(), qPrintable(typed));
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
        BarList* bars = tab->attribution()->bars();
        QTRY_COMPARE_WITH_TIMEOUT(int(bars->values().size()), 27, 30000);  // 24 MLPs + 3
        QCoreApplication::processEvents();
        QTRY_VERIFY(bars->isVisible());
        const std::vector<BarList::Row> rows = bars->rows();
        QCOMPARE(int(rows.size()), 27);
        QStringList out;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const BarList::Row& r = rows[i];
            if (r.label.isEmpty()) {
                out << QStringLiteral("“%1” is not labelled").arg(bars->labels().value(int(i)));
                continue;
            }
            QString why = misfit(bars->labels().value(int(i)), r.label, bars->font());
            if (!why.isEmpty()) out << why;
            if (i > 0 &&
                (overlap(r.label, rows[i - 1].label) || overlap(r.number, rows[i - 1].number)))
                out << QStringLiteral("row %1 overlaps row %2").arg(i + 1).arg(i);
            if (!QRectF(bars->rect()).adjusted(-0.5, -0.5, 0.5, 0.5).contains(r.label))
                out << QStringLiteral("“%1” leaves the list").arg(bars->labels().value(int(i)));
        }
        QVERIFY2(out.isEmpty(), qPrintable(out.join(QStringLiteral("; "))));
    }

    void modelTabLabelsAreReadable_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void modelTabLabelsAreReadable() {
        QFETCH(QSize, size);
        {
            // 24 layers: the layer labels of rows shorter than a line of text.
            MainWindow w;
            fileio::ModelController* models = test_support::attachQuietModels(w);
            QVERIFY(models);
            w.resize(size);
            QVERIFY2(models->openModel(dir_.path()), qPrintable(models->lastError()));
            ModelGridCanvas* canvas = showModelTab(w);
            QVERIFY(canvas);
            QTRY_VERIFY_WITH_TIMEOUT(canvas->isVisible() && canvas->thumbnails().layers == 24 &&
                                         int(canvas->thumbnails().images.size()) == 24 * 4,
                                     60000);
            test_support::settleAll(w.computeService());
            QCOMPARE(canvasProblems(canvas), QString());
        }
        {
            // 14 heads in 2 key/value groups (Qwen2.5-0.5B's), on the synthetic scene.
            MainWindow w;
            QVERIFY(test_support::attachQuietModels(w));
            w.resize(size);
            attn::SceneSpec s = w.scene()->spec();
            s.heads = 14;
            s.kv_heads = 2;
            s.d_model = 14 * 8;
            w.scene()->setSpec(s, QStringLiteral("GQA"));
            test_support::settleAll(w.computeService());
            ModelGridCanvas* canvas = showModelTab(w);
            QVERIFY(canvas);
            QTRY_VERIFY_WITH_TIMEOUT(canvas->isVisible() && canvas->thumbnails().heads == 14 &&
                                         canvas->thumbnails().kvGroups == 2,
                                     60000);
            test_support::settleAll(w.computeService());
            QStringList kv;
            for (const ModelGridCanvas::Label& l : canvas->labels())
                if (l.text.startsWith(QStringLiteral("KV "))) kv << l.text;
            QCOMPARE(kv, (QStringList{QStringLiteral("KV 1"), QStringLiteral("KV 2")}));
            QCOMPARE(canvasProblems(canvas), QString());
        }
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(PaintedLabelsTest)
#include "painted_labels_test.moc"
