// QtTest: File ▸ Export of the Interventions pages, driven through the menu and its dialog as a
// user does, on the tiny GPT-2 running "the cat sat". Each page's figure (PNG, SVG, PDF) is
// its figure alone: the proposed size is the figure widget's and the file has that size, no
// field, button, progress bar or list is painted into it, and the SVG's text holds the axis
// names but no "Hover", "Run patching" or "Token:". The numbers describe themselves: the logit
// lens's .npz holds its probabilities as float32 and its ids as int32 matrices with the
// tokens (a .npy is refused, naming .npz), the patching CSV and .npz hold the prompts, answer
// ids and logit differences beside the maps, the attribution .npz the token and its parts.
// GPL-3.0-or-later.
#include <QAbstractButton>
#include <QAbstractItemView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QMessageBox>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTimer>
#include <QtTest>
#include <cstring>
#include <map>

#include "attn/interventions/attribution.hpp"
#include "attn/interventions/lens.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/scene/model_scene.hpp"
#include "csv_rows.hpp"
#include "export/export_dialog.hpp"
#include "interventions_window.hpp"
#include "views/attribution_view.hpp"
#include "views/cell_map.hpp"
#include "views/logit_lens_view.hpp"

namespace {

/// Records which watched widgets receive a paint event while armed (from Export pressed to the
/// export's end, not the window's own repaints around the dialog).
class PaintWatch : public QObject {
  public:
    void watch(QWidget* w) { w->installEventFilter(this); }
    bool eventFilter(QObject* o, QEvent* e) override {
        if (armed && e->type() == QEvent::Paint)
            painted << QString::fromLatin1(o->metaObject()->className()) + QLatin1Char(' ') +
                           o->objectName();
        return false;
    }
    QStringList painted;
    bool armed = false;
};

/// Whether W lies inside FIGURE.
bool inside(QWidget* w, QWidget* figure) {
    for (; w; w = w->parentWidget())
        if (w == figure) return true;
    return false;
}

struct Exported {
    QSize proposed;
    double dpi = 0;
    QStringList formats;
    QString refused;  ///< the warning's text when the export failed
};

/// File ▸ Export: the dialog's proposal read, PATH typed, Export pressed; a warning closed.
/// WATCH (optional) is armed while the export runs.
Exported exportThroughMenu(MainWindow& w, const QString& path, PaintWatch* watch = nullptr) {
    Exported out;
    QTimer answer;
    answer.setInterval(20);
    QObject::connect(&answer, &QTimer::timeout, [&] {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* dialog = qobject_cast<ExportDialog*>(modal)) {
            const QList<QSpinBox*> spins = dialog->findChildren<QSpinBox*>();
            out.proposed = QSize(spins.value(0)->value(), spins.value(1)->value());
            out.dpi = dialog->dpiBox()->value();
            for (int i = 0; i < dialog->formatBox()->count(); ++i)
                out.formats << dialog->formatBox()->itemText(i);
            dialog->pathEdit()->setText(path);
            if (watch) watch->armed = true;
            dialog->accept();
        } else if (auto* box = qobject_cast<QMessageBox*>(modal)) {
            out.refused = box->text();
            box->accept();
        }
    });
    answer.start();
    w.exportAction()->trigger();
    if (watch) watch->armed = false;
    answer.stop();
    return out;
}

/// An .npz's members by name: each the header and its bytes.
struct Arrays {
    attn::io::NpzMembers members;
    const std::vector<std::byte>* find(const std::string& name) const {
        for (const auto& [n, bytes] : members)
            if (n == name) return &bytes;
        return nullptr;
    }
    attn::io::NpyHeader header(const std::string& name) const {
        return attn::io::parse_npy_header(*find(name), name);
    }
    std::vector<float> floats(const std::string& name) const {
        const attn::io::NpyHeader h = header(name);
        std::vector<float> out(h.count());
        attn::io::decode_floats(find(name)->data() + h.data_offset, h, out.size(), out.data());
        return out;
    }
    std::vector<std::int32_t> ints(const std::string& name) const {
        const attn::io::NpyHeader h = header(name);
        std::vector<std::int32_t> out(h.count());
        std::memcpy(out.data(), find(name)->data() + h.data_offset, out.size() * 4);
        return out;
    }
    QStringList strings(const std::string& name) const {
        const attn::io::NpyHeader h = header(name);
        QStringList out;
        const std::size_t width = h.item_size / 4;
        for (std::uint64_t i = 0; i < h.count(); ++i) {
            std::u32string s;
            for (std::size_t c = 0; c < width; ++c) {
                char32_t cp = 0;
                std::memcpy(&cp, find(name)->data() + h.data_offset + (i * width + c) * 4, 4);
                if (cp) s += cp;
            }
            out << QString::fromUcs4(s.data(), qsizetype(s.size()));
        }
        return out;
    }
};

/// The y column of the CSV rows of series NAME (columns: series_index, plot, series, x, y, …).
std::vector<double> seriesY(const QList<QStringList>& rows, const QString& name) {
    std::vector<double> out;
    for (const QStringList& r : rows)
        if (r.size() >= 5 && r[2] == name) out.push_back(r[4].toDouble());
    return out;
}

}  // namespace

class InterventionExportsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeInterventionExportsTest"));
        QVERIFY(dir_.isValid());
        QVERIFY(out_.isValid());
        QCOMPARE(test_support::writeTinyGpt2(dir_.path()), QString());
        w_ = std::make_unique<MainWindow>();
        QCOMPARE(
            test_support::openInterventions(*w_, dir_.path(), QStringLiteral("the cat sat"), &tab_),
            QString());
    }

    void cleanupTestCase() { w_.reset(); }

    void eachPageExportsItsFigureAlone_data() {
        QTest::addColumn<QString>("page");
        QTest::addColumn<QStringList>("axes");
        QTest::newRow("logit lens")
            << QStringLiteral("Logit lens")
            << QStringList{QStringLiteral("residual stream"), QStringLiteral("position (token)")};
        QTest::newRow("attribution") << QStringLiteral("Attribution")
                                     << QStringList{QStringLiteral("layer"), QStringLiteral("head"),
                                                    QStringLiteral("MLPs, embedding, biases")};
        QTest::newRow("patching") << QStringLiteral("Patching")
                                  << QStringList{QStringLiteral("layer"), QStringLiteral("head"),
                                                 QStringLiteral("position (token)")};
    }

    void eachPageExportsItsFigureAlone() {
        QFETCH(QString, page);
        QFETCH(QStringList, axes);
        QWidget* view = showPage(page);
        QVERIFY(view);
        QWidget* figure = nullptr;
        for (QWidget* w : view->findChildren<QWidget*>())
            if (w->property("attnFigure").toBool()) figure = w;
        QVERIFY2(figure, "the page has no figure part");
        PaintWatch watch;
        for (QWidget* w : view->findChildren<QWidget*>())
            if (!inside(w, figure) &&
                (qobject_cast<QLineEdit*>(w) || qobject_cast<QAbstractButton*>(w) ||
                 qobject_cast<QProgressBar*>(w) || qobject_cast<QAbstractItemView*>(w) ||
                 qobject_cast<QLabel*>(w)))
                watch.watch(w);
        const QString base =
            out_.filePath(page.toLower().replace(QLatin1Char(' '), QLatin1Char('-')));

        const Exported png = exportThroughMenu(*w_, base + QStringLiteral(".png"), &watch);
        QCOMPARE(png.refused, QString());
        QCOMPARE(png.proposed, figure->size());
        const QImage image(base + QStringLiteral(".png"));
        QCOMPARE(image.size(), png.proposed * (png.dpi / 96.0));
        QVERIFY(test_support::distinctColours(image) > 12);

        const Exported svg = exportThroughMenu(*w_, base + QStringLiteral(".svg"), &watch);
        QCOMPARE(svg.refused, QString());
        QFile file(base + QStringLiteral(".svg"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString xml = QString::fromUtf8(file.readAll());
        QVERIFY(xml.contains(
            QStringLiteral("viewBox=\"0 0 %1 %2\"").arg(figure->width()).arg(figure->height())));
        QString text;
        static const QRegularExpression texts(QStringLiteral("<text[^>]*>([^<]*)</text>"));
        for (const QRegularExpressionMatch& m : texts.globalMatch(xml))
            text += m.captured(1) + QLatin1Char('|');
        for (const QString& axis : axes)
            QVERIFY2(text.contains(axis), qPrintable(axis + QStringLiteral(" not in ") + text));
        // Buttons and labels draw their mnemonic letter apart ("R" + "un patching").
        for (const char* ui : {"Hover", "Clean:", "orrupted:", "nswer:", "rong:", "un patching",
                               "Sto", "Token:", "or type a token", "text or id"})
            QVERIFY2(!text.contains(QString::fromUtf8(ui)), qPrintable(QString::fromUtf8(ui)));

        const Exported pdf = exportThroughMenu(*w_, base + QStringLiteral(".pdf"), &watch);
        QCOMPARE(pdf.refused, QString());
        QFile doc(base + QStringLiteral(".pdf"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        static const QRegularExpression box(QStringLiteral("/MediaBox \\[0 0 ([0-9.]+) ([0-9.]+)"));
        const QRegularExpressionMatch m = box.match(QString::fromLatin1(doc.readAll()));
        QVERIFY(m.hasMatch());
        QVERIFY(std::abs(m.captured(1).toDouble() - figure->width() * 0.75) < 1);
        QVERIFY(std::abs(m.captured(2).toDouble() - figure->height() * 0.75) < 1);
        QVERIFY2(watch.painted.isEmpty(), qPrintable(watch.painted.join(QStringLiteral(", "))));
    }

    void theLensNumbersAreLabelledMatrices() {
        auto* lens = qobject_cast<LogitLensView*>(showPage(QStringLiteral("Logit lens")));
        QVERIFY(lens);
        const Exported npy = exportThroughMenu(*w_, out_.filePath(QStringLiteral("lens.npy")));
        QVERIFY2(npy.refused.contains(QStringLiteral(".npz")), qPrintable(npy.refused));
        QVERIFY(!QFileInfo::exists(out_.filePath(QStringLiteral("lens.npy"))));
        const QString path = out_.filePath(QStringLiteral("lens.npz"));
        const Exported npz = exportThroughMenu(*w_, path);
        QCOMPARE(npz.refused, QString());
        QVERIFY2(npz.formats.filter(QStringLiteral(".npz")).size() == 1 &&
                     npz.formats.filter(QStringLiteral(".npy")).isEmpty(),
                 qPrintable(npz.formats.join(QLatin1Char('|'))));
        Arrays a{attn::io::read_npz(QFile::encodeName(path).toStdString())};
        const attn::interv::LensTable& t = lens->table();
        const std::vector<std::uint64_t> cells{std::uint64_t(t.layers), std::uint64_t(t.positions)};
        QCOMPARE(t.layers, attn::Index(4));
        QVERIFY(a.find("probabilities") && a.find("ids") && a.find("tokens"));
        QCOMPARE(a.header("probabilities").type, attn::io::NpyType::Float32);
        QVERIFY(a.header("probabilities").shape == cells);
        QCOMPARE(a.header("ids").type, attn::io::NpyType::Int32);
        QVERIFY(a.header("ids").shape == cells);
        const std::vector<float> p = a.floats("probabilities");
        const std::vector<std::int32_t> ids = a.ints("ids");
        for (std::size_t i = 0; i < t.cells.size(); ++i) {
            QCOMPARE(p[i], t.cells[i].probabilities[0]);
            QCOMPARE(ids[i], t.cells[i].ids[0]);
        }
        QCOMPARE(a.strings("tokens"), lens->map()->columnLabels());
        QCOMPARE(a.strings("rows"), lens->map()->rowLabels());
        const auto run = attn::model::scene_run(w_->scene()->spec());
        QVERIFY(a.ints("token_ids") == run->ids);
        QVERIFY(a.header("top5_ids").shape ==
                (std::vector<std::uint64_t>{cells[0], cells[1],
                                            std::uint64_t(attn::interv::kLensTop)}));
    }

    void thePatchingNumbersNameTheirInputs() {
        QCOMPARE(test_support::runPatching(tab_, QStringLiteral("the dog sat"),
                                           QStringLiteral("42"), QStringLiteral("114")),
                 QString());
        PatchingView* view = tab_->patching();
        const attn::interv::PatchResult& r = view->result();
        const attn::interv::PatchSpec& s = view->patchSpec();
        const QString csv = out_.filePath(QStringLiteral("patching.csv"));
        QCOMPARE(exportThroughMenu(*w_, csv).refused, QString());
        const QList<QStringList> rows = test_support::readCsv(csv);
        QVERIFY(rows.size() > 40);
        QCOMPARE(rows[0].join(QLatin1Char(',')),
                 QStringLiteral("series_index,plot,series,x,y,z,x_label,y_label"));
        const auto asDoubles = [](const std::vector<std::int32_t>& v) {
            return std::vector<double>(v.begin(), v.end());
        };
        QVERIFY(seriesY(rows, QStringLiteral("clean prompt")) == asDoubles(s.clean));
        QVERIFY(seriesY(rows, QStringLiteral("corrupted prompt")) == asDoubles(s.corrupt));
        QVERIFY(seriesY(rows, QStringLiteral("answer token")) == std::vector<double>{42});
        QVERIFY(seriesY(rows, QStringLiteral("wrong token")) == std::vector<double>{114});
        const std::vector<double> diffs =
            seriesY(rows, QStringLiteral("logit difference (answer − wrong)"));
        QCOMPARE(diffs.size(), std::size_t(3));
        QCOMPARE(diffs[0], r.clean_diff);  // shortest decimals: the same double read back
        QCOMPARE(diffs[1], r.corrupt_diff);
        // Plain labels: an answer's own text (its id is y), never the page's “text” (id); a
        // layers × heads cell has none (x and y are its head and layer, from 0).
        const auto folder = w_->scene()->spec().model;
        const QString answer = QString::fromStdString(folder->tokenizer->token_text(42));
        const QString wrong = QString::fromStdString(folder->tokenizer->token_text(114));
        int headCells = 0;
        for (const QStringList& row : rows) {
            if (row.value(2) == QLatin1StringView("answer token")) QCOMPARE(row.value(6), answer);
            if (row.value(2) == QLatin1StringView("wrong token")) QCOMPARE(row.value(6), wrong);
            if (row.value(1) == view->headMap()->title()) {
                QCOMPARE(row.value(6), QString());
                QCOMPARE(row.value(7), QString());
                ++headCells;
            }
            if (row.value(1) == view->residMap()->title() && row.value(4) == QLatin1StringView("1"))
                QCOMPARE(row.value(7), QStringLiteral("after layer 1"));
        }
        QCOMPARE(headCells, 6);

        const QString npzPath = out_.filePath(QStringLiteral("patching.npz"));
        QCOMPARE(exportThroughMenu(*w_, npzPath).refused, QString());
        Arrays a{attn::io::read_npz(QFile::encodeName(npzPath).toStdString())};
        QVERIFY(a.find("head_patch") && a.find("resid_patch") && a.find("clean_ids"));
        const std::vector<float> heads = a.floats("head_patch");
        QVERIFY(a.header("head_patch").shape == (std::vector<std::uint64_t>{3, 2}));
        for (std::size_t i = 0; i < heads.size(); ++i)
            QCOMPARE(heads[i], r.heads(attn::Index(i / 2), attn::Index(i % 2)));
        QVERIFY(a.header("resid_patch").shape == (std::vector<std::uint64_t>{4, 10}));
        QVERIFY(a.ints("clean_ids") == s.clean);
        QVERIFY(a.ints("corrupt_ids") == s.corrupt);
        QVERIFY(a.ints("answer_id") == std::vector<std::int32_t>{42});
        QVERIFY(a.ints("wrong_id") == std::vector<std::int32_t>{114});
        QCOMPARE(a.strings("answer"), QStringList{answer});
        QCOMPARE(a.strings("wrong"), QStringList{wrong});
        QCOMPARE(a.strings("clean_text"), QStringList{QStringLiteral("the cat sat")});
        QCOMPARE(a.strings("corrupt_text"), QStringList{QStringLiteral("the dog sat")});
        QCOMPARE(a.floats("clean_diff").front(), float(r.clean_diff));
        QCOMPARE(a.floats("corrupt_diff").front(), float(r.corrupt_diff));
        QVERIFY(a.ints("unstable") == std::vector<std::int32_t>{1});
    }

    void theAttributionNumbersNameTheToken() {
        auto* view = qobject_cast<AttributionView*>(showPage(QStringLiteral("Attribution")));
        QVERIFY(view);
        const QString path = out_.filePath(QStringLiteral("attribution.npz"));
        QCOMPARE(exportThroughMenu(*w_, path).refused, QString());
        Arrays a{attn::io::read_npz(QFile::encodeName(path).toStdString())};
        const attn::interv::Attribution& r = view->attribution();
        QVERIFY(a.find("head_attribution") && a.find("token_id") && a.find("logit"));
        const std::vector<float> heads = a.floats("head_attribution");
        for (std::size_t i = 0; i < heads.size(); ++i)
            QCOMPARE(heads[i], r.heads(attn::Index(i / 2), attn::Index(i % 2)));
        QVERIFY(a.ints("token_id") == std::vector<std::int32_t>{r.token});
        // The token's own text, not the page's “text” (id).
        const auto& tokenizer = *w_->scene()->spec().model->tokenizer;
        QCOMPARE(a.strings("token"),
                 QStringList{QString::fromStdString(tokenizer.token_text(r.token))});
        QCOMPARE(a.floats("logit").front(), float(r.logit));
        QCOMPARE(a.floats("mlp_attribution").size(), std::size_t(3));
    }

  private:
    /// Shows PAGE of the Interventions tab with its result computed.
    QWidget* showPage(const QString& page) {
        if (!test_support::clickTabTitled(tab_->pages()->tabBar(), page)) return nullptr;
        QWidget* view = tab_->pages()->currentWidget();
        if (!QTest::qWaitFor([&] { return view->isVisible(); }, 5000)) return nullptr;
        bool ready = false;
        if (auto* lens = qobject_cast<LogitLensView*>(view))
            ready = QTest::qWaitFor([&] { return !lens->table().cells.empty(); }, 30000);
        if (auto* a = qobject_cast<AttributionView*>(view))
            ready = QTest::qWaitFor([&] { return a->attribution().heads.size() > 0; }, 30000);
        if (qobject_cast<PatchingView*>(view))
            ready = test_support::runPatching(tab_, QStringLiteral("the dog sat"),
                                              QStringLiteral("42"), QStringLiteral("114"))
                        .isEmpty();
        return ready ? view : nullptr;
    }

    QTemporaryDir dir_, out_;
    std::unique_ptr<MainWindow> w_;
    InterventionsTab* tab_ = nullptr;
};

QTEST_MAIN(InterventionExportsTest)
#include "intervention_exports_test.moc"
