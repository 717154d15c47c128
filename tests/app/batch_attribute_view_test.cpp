// QtTest: File ▸ Open of an attribute batch, written by `attnscope batch --analysis attribute`
// (in-process) on the tiny GPT-2, with real events. The Batch tab draws the averaged erasure
// curves (mean and mean ± s.d. per method), the mean agreement (NaN cells as "NaN") and each
// example's scores per token; every drawn number equals the file's arrays as numpy reads them;
// hovering gives the numbers; each panel exports its picture and its numbers; a batch whose
// every example leaves τ-b undefined shows NaN, and a ragged array of the wrong length is
// refused naming the key. GPL-3.0-or-later.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include "batch_files.hpp"
#include "cli/cli.hpp"
#include "views/batch_attribution_view.hpp"
#include "views/influence_strips.hpp"
#include "views/qcp.hpp"

using namespace batch_test;

namespace {

constexpr int kErasures = 3;

/// The members of the .npz at PATH that the tab draws, as numpy reads them (JSON; NaN: null).
QJsonObject numpyRead(const QString& path) {
    const char* script = R"(
import json, sys
import numpy as np
z = np.load(sys.argv[1])
num = lambda a: [None if np.isnan(v) else float(v) for v in np.asarray(a, np.float64).ravel()]
methods = [str(m) for m in z["agreement_methods"]]
out = {"methods": methods, "offsets": [int(v) for v in z["examples/token_offsets"]],
       "position": [int(v) for v in z["per_example/position"]],
       "agreement_mean": num(z["aggregate/agreement_mean"]),
       "agreement_std": num(z["aggregate/agreement_std"]),
       "agreement_count": num(z["aggregate/agreement_count"])}
for m in methods:
    out["faith_" + m + "_mean"] = num(z["aggregate/faith_" + m + "_mean"])
    out["faith_" + m + "_std"] = num(z["aggregate/faith_" + m + "_std"])
    out["scores_" + m] = num(z["per_example/" + m])
print(json.dumps(out))
)";
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"),
            {QStringLiteral("-c"), QString::fromUtf8(script), path});
    if (!p.waitForFinished(60000) || p.exitCode() != 0) return {};
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

std::vector<double> numbers(const QJsonValue& v) {
    std::vector<double> out;
    for (const QJsonValue& x : v.toArray())
        out.push_back(x.isNull() ? std::numeric_limits<double>::quiet_NaN() : x.toDouble());
    return out;
}

/// Whether GOT equals WANT within float32 rounding of values about SCALE (NaN where WANT is).
bool close(double got, double want, double scale = 1.0) {
    if (std::isnan(want)) return std::isnan(got);
    return std::abs(got - want) <= 2e-7 * std::max({1.0, std::abs(want), scale});
}

/// GRAPH's values at k = 0, 1, ….
std::vector<double> graphValues(QCPGraph* graph) {
    std::vector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out.push_back(it->value);
    return out;
}

/// Hovers the plot at (X, Y) in its coordinates and returns the tooltip shown.
QString hoverPlot(QCustomPlot* plot, double x, double y) {
    const QPoint at(int(std::lround(plot->xAxis->coordToPixel(x))),
                    int(std::lround(plot->yAxis->coordToPixel(y))));
    QTest::mouseMove(plot, at);
    QHelpEvent help(QEvent::ToolTip, at, plot->mapToGlobal(at));
    QApplication::sendEvent(plot, &help);
    const QString text = QToolTip::isVisible() ? QToolTip::text() : QString();
    QToolTip::hideText();
    return text;
}

}  // namespace

class BatchAttributeViewTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(model_.isValid());
        QVERIFY(files_.isValid());
        QCOMPARE(test_support::writeTinyGpt2(model_.path()), QString());
        batch_ = runBatch({QStringLiteral("the cat sat on"), QStringLiteral("we saw it"),
                           QStringLiteral("my hat is red")},
                          QStringLiteral("attribute.npz"));
        QVERIFY(!batch_.isEmpty());
        want_ = numpyRead(batch_);
        QVERIFY(!want_.isEmpty());
    }

    void init() {
        w_ = std::make_unique<MainWindow>();
        runs_ = batch_test::batchWindow(*w_);
        QVERIFY(runs_);
    }

    void cleanup() { w_.reset(); }

    void theCurvesAreTheFilesMeansAndBands() {
        BatchAttributionView* view = open(batch_);
        QVERIFY(view);
        QVERIFY(!runs_->view()->meanMap()->isVisible());  // no per-head map: the panels instead
        const QJsonArray methods = want_[QStringLiteral("methods")].toArray();
        QCOMPARE(methods.size(), 7);  // attention and the six token-level methods
        QCustomPlot* plot = view->faithPlot();
        QCOMPARE(plot->graphCount(), 3 * int(methods.size()));
        for (int m = 0; m < methods.size(); ++m) {
            const QString key = methods[m].toString();
            const std::vector<double> mean =
                numbers(want_[QStringLiteral("faith_%1_mean").arg(key)]);
            const std::vector<double> sd = numbers(want_[QStringLiteral("faith_%1_std").arg(key)]);
            QCOMPARE(int(mean.size()), kErasures + 1);
            // Each method: its band's lower and upper edges, then its mean.
            const std::vector<double> low = graphValues(plot->graph(3 * m)),
                                      high = graphValues(plot->graph(3 * m + 1)),
                                      line = graphValues(plot->graph(3 * m + 2));
            QCOMPARE(line.size(), mean.size());
            for (std::size_t k = 0; k < mean.size(); ++k) {
                QVERIFY2(close(line[k], mean[k]), qPrintable(key));
                const double scale = std::abs(mean[k]) + sd[k];
                QVERIFY2(close(low[k], mean[k] - sd[k], scale), qPrintable(key));
                QVERIFY2(close(high[k], mean[k] + sd[k], scale), qPrintable(key));
            }
        }
        // Hovering the saliency curve's point at k = 2 reads its mean ± s.d. and n.
        const QStringList names = want_[QStringLiteral("methods")].toVariant().toStringList();
        const int s = int(names.indexOf(QStringLiteral("saliency")));
        const std::vector<double> mean = numbers(want_[QStringLiteral("faith_saliency_mean")]);
        const std::vector<double> sd = numbers(want_[QStringLiteral("faith_saliency_std")]);
        QVERIFY(s > 0);
        const QString tip = hoverPlot(plot, 2, mean[2]);
        QVERIFY2(tip.contains(QStringLiteral("2 token(s) erased")), qPrintable(tip));
        // Another method's curve may pass through the same pixel: the tip names the nearest.
        if (tip.startsWith(QStringLiteral("Saliency")))
            QCOMPARE(tip,
                     QStringLiteral("Saliency, 2 token(s) erased: mean logit %1 ± %2 (s.d.), "
                                    "n = 3")
                         .arg(QString::number(mean[2], 'g', 6), QString::number(sd[2], 'g', 6)));
    }

    void theAgreementIsTheFilesMean() {
        BatchAttributionView* view = open(batch_);
        QVERIFY(view);
        const std::vector<double> mean = numbers(want_[QStringLiteral("agreement_mean")]);
        const std::vector<double> sd = numbers(want_[QStringLiteral("agreement_std")]);
        const std::vector<double> count = numbers(want_[QStringLiteral("agreement_count")]);
        CellMap* map = view->agreementMap();
        const int a = int(map->values().rows());
        QCOMPARE(a, 7);
        for (int i = 0; i < a; ++i)
            for (int j = 0; j < a; ++j) {
                const std::size_t c = std::size_t(i * a + j);
                QVERIFY(close(map->values()(i, j), mean[c]));
                QCOMPARE(map->texts().value(int(c)), std::isnan(mean[c])
                                                         ? QStringLiteral("NaN")
                                                         : QString::number(mean[c], 'f', 2));
            }
        QVERIFY(close(map->values()(0, 0), 1.0));  // attention agrees with itself
        // Hovering saliency × rollout reads the mean ± s.d. over the examples defining it.
        const QStringList names = want_[QStringLiteral("methods")].toVariant().toStringList();
        const int i = int(names.indexOf(QStringLiteral("saliency"))),
                  j = int(names.indexOf(QStringLiteral("rollout")));
        const std::size_t c = std::size_t(i * a + j);
        const QString tip = hover(map, i, j);
        QCOMPARE(tip, QStringLiteral("τ-b of Saliency and Attention rollout: mean %1 ± %2 (s.d.) "
                                     "over the %3 example(s) that define it")
                          .arg(QString::number(mean[c], 'g', 6), QString::number(sd[c], 'g', 6))
                          .arg(qint64(count[c])));
    }

    void eachExamplesScoresPerToken() {
        BatchAttributionView* view = open(batch_);
        QVERIFY(view);
        const std::vector<double> offsets = numbers(want_[QStringLiteral("offsets")]);
        const std::vector<double> position = numbers(want_[QStringLiteral("position")]);
        const QStringList names = want_[QStringLiteral("methods")].toVariant().toStringList();
        // The keyboard picks each example in turn: its strips are its slice of the scores.
        view->exampleBox()->setFocus();
        for (int e = 0; e < 3; ++e) {
            if (e > 0) QTest::keyClick(view->exampleBox(), Qt::Key_Down);
            QCOMPARE(runs_->document()->attributedExample(), e);
            InfluenceStrips* strips = view->strips();
            const int first = int(offsets[std::size_t(e)]),
                      n = int(offsets[std::size_t(e) + 1]) - first;
            QCOMPARE(int(strips->tokens().size()), n);
            QCOMPARE(strips->position(), int(position[std::size_t(e)]));
            QCOMPARE(int(strips->rows().size()), int(names.size()));
            for (int m = 0; m < names.size(); ++m) {
                const std::vector<double> all =
                    numbers(want_[QStringLiteral("scores_") + names[m]]);
                const std::vector<double>& got = strips->rows()[std::size_t(m)].values;
                QCOMPARE(int(got.size()), n);
                for (int t = 0; t < n; ++t)
                    QVERIFY2(close(got[std::size_t(t)], all[std::size_t(first + t)]),
                             qPrintable(names[m]));
            }
        }
        // The tokens are the tokenizer's (the model folder opened), not ids.
        QVERIFY(!view->strips()->tokens().value(0).startsWith(QLatin1Char('#')));
        QVERIFY(view->strips()->title().contains(QStringLiteral("Line 3")));
        // Hover: the number of a cell.
        const double v = view->strips()->rows()[0].values[1];
        view->strips()->show();
        const QPoint at = view->strips()->cellCentre(0, 1);
        QHelpEvent help(QEvent::ToolTip, at, view->strips()->mapToGlobal(at));
        QApplication::sendEvent(view->strips(), &help);
        QVERIFY2(QToolTip::text().contains(QString::number(v, 'g', 6)),
                 qPrintable(QToolTip::text()));
        QToolTip::hideText();
    }

    void eachPanelExports() {
        BatchAttributionView* view = open(batch_);
        QVERIFY(view);
        const QString csv = files_.filePath(QStringLiteral("faith.csv"));
        QVERIFY(batch_test::exportThroughButton(view->faithPanel(), csv));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        const std::vector<double> mean = numbers(want_[QStringLiteral("faith_rollout_mean")]);
        QVERIFY2(text.contains(QStringLiteral("Attention rollout mean,1,")),
                 qPrintable(text.left(300)));
        // The exported numbers are the drawn ones (float32 read back at full precision).
        QVERIFY(text.contains(QString::number(double(float(mean[1])), 'g', 17).left(8)));
        for (const char* ext : {"png", "svg", "pdf", "npy"}) {
            for (QWidget* panel :
                 {view->faithPanel(), view->agreementPanel(), view->tokensPanel()}) {
                const QString path = files_.filePath(
                    BatchView::panelName(panel) + QStringLiteral(".") + QString::fromLatin1(ext));
                QVERIFY2(batch_test::exportThroughButton(panel, path), qPrintable(path));
                QVERIFY(QFileInfo(path).size() > 0);
            }
        }
        QVERIFY(!QImage(files_.filePath(QStringLiteral("batch-faithfulness.png"))).isNull());
    }

    void undefinedAgreementReadsNaN() {
        // One-token texts: every method scores the one token alike, τ-b is defined nowhere.
        const QString path =
            runBatch({QStringLiteral("a"), QStringLiteral("b")}, QStringLiteral("single.npz"));
        QVERIFY(!path.isEmpty());
        BatchAttributionView* view = open(path);
        QVERIFY(view);
        CellMap* map = view->agreementMap();
        QVERIFY(std::isnan(map->values()(0, 1)));
        QCOMPARE(map->texts().value(1), QStringLiteral("NaN"));
        QVERIFY(hover(map, 0, 1).contains(QStringLiteral("NaN, defined in no example")));
    }

    void aRaggedArrayOfTheWrongLengthIsRefused() {
        QVERIFY(open(batch_));
        attn::io::NpzMembers members = attn::io::read_npz(batch_.toStdString());
        const std::vector<float> three(3, 0.5f);
        const QString bad =
            writeBatch(files_, QStringLiteral("ragged.npz"),
                       edited(members, "per_example/saliency",
                              attn::io::npy_bytes(three, std::vector<std::uint64_t>{3})));
        QVERIFY(!files()->openFile(bad));
        QVERIFY2(files()->lastError().contains(QStringLiteral("ragged.npz")) &&
                     files()->lastError().contains(QStringLiteral("per_example/saliency")) &&
                     files()->lastError().contains(QStringLiteral("[3]")),
                 qPrintable(files()->lastError()));
        QCOMPARE(runs_->document()->path(), batch_);  // the batch on show kept
    }

  private:
    fileio::FileController* files() { return w_->findChild<fileio::FileController*>(); }

    /// `attnscope batch --analysis attribute` of TEXTS on the tiny GPT-2 into NAME; its path.
    QString runBatch(const QStringList& texts, const QString& name) {
        const QString dataset = files_.filePath(name + QStringLiteral(".jsonl"));
        QFile f(dataset);
        if (!f.open(QIODevice::WriteOnly)) return {};
        for (const QString& t : texts)
            f.write(QJsonDocument(QJsonObject{{QStringLiteral("text"), t}})
                        .toJson(QJsonDocument::Compact) +
                    "\n");
        f.close();
        const QString out = files_.filePath(name);
        QString o, e;
        QTextStream os(&o), es(&e);
        const int code = cli::run(
            {QStringLiteral("attnscope"), QStringLiteral("batch"), QStringLiteral("--model"),
             model_.path(), QStringLiteral("--dataset"), dataset, QStringLiteral("--analysis"),
             QStringLiteral("attribute"), QStringLiteral("--steps"), QStringLiteral("4"),
             QStringLiteral("--faithfulness"), QString::number(kErasures), QStringLiteral("-o"),
             out},
            os, es);
        if (code != 0) qWarning("batch: %s", qPrintable(e));
        return code == 0 ? out : QString();
    }

    /// Opens PATH through File ▸ Open; its attribution panels once shown.
    BatchAttributionView* open(const QString& path) {
        if (!files()->openFile(path)) {
            qWarning("%s", qPrintable(files()->lastError()));
            return nullptr;
        }
        BatchAttributionView* view = runs_->view()->attribution();
        if (!QTest::qWaitFor([&] { return view->isVisible(); })) return nullptr;
        // The panels laid out at the window's size before any hover reads a cell or a point.
        if (!QTest::qWaitForWindowExposed(w_.get())) return nullptr;
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        view->faithPlot()->replot();
        return view;
    }

    QTemporaryDir model_, files_;
    QString batch_;
    QJsonObject want_;
    std::unique_ptr<MainWindow> w_;
    fileio::BatchRuns* runs_ = nullptr;
};

QTEST_MAIN(BatchAttributeViewTest)
#include "batch_attribute_view_test.moc"
