// QtTest: the command line in-process. The GPT-2 fixture's raw scores, with scaling by
// 1/√64 and the causal mask, reproduce the model's own attention weights; render writes the
// figure it is asked for; errors have their documented exit codes.
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTextStream>
#include <QtTest>
#include <cmath>
#include <new>
#include <stdexcept>

#include "app_test_support.hpp"
#include "attn/io/load.hpp"
#include "attn/util/error.hpp"
#include "cli/cli.hpp"
#include "cli/exit_codes.hpp"

namespace {

const QString kGpt2 = test_support::fixture("gpt2_small_ex0.npz");

int runCli(const QStringList& args, QString* err = nullptr) {
    QString out, errText;
    QTextStream o(&out), e(&errText);
    const int code = cli::run(QStringList{QStringLiteral("attnscope")} + args, o, e);
    if (err) *err = errText;
    return code;
}

}  // namespace

class CliComputeTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void unexpectedExceptionsBecomeAMessageAndExit70() {
        // main() runs everything under guardUnexpected: what escapes every other handler is
        // one line and exit code 70, never an abort (134) or a standard library's text.
        QString text;
        QTextStream err(&text);
        const int code = cli::guardUnexpected(
            []() -> int { throw std::out_of_range("vector::_M_range_check: __n (which is 999)"); },
            err);
        QCOMPARE(code, cli::kExitInternal);
        QCOMPARE(code, 70);
        QVERIFY2(text.startsWith(QStringLiteral("attnscope: internal error: an unexpected error")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("_M_range_check")), qPrintable(text));
        text.clear();
        QCOMPARE(cli::guardUnexpected([]() -> int { throw std::bad_alloc(); }, err), 70);
        QVERIFY2(text.contains(QStringLiteral("out of memory")), qPrintable(text));
        text.clear();
        QCOMPARE(
            cli::guardUnexpected([]() -> int { throw attn::FormatError("x.npz: broken"); }, err),
            70);
        QVERIFY2(text.contains(QStringLiteral("x.npz: broken")), qPrintable(text));
        text.clear();
        QCOMPARE(cli::guardUnexpected([] { return 3; }, err), 3);
        QVERIFY(text.isEmpty());
    }

    void gpt2ScoresReproduceItsWeights() {
        const QString out = dir_.filePath(QStringLiteral("gpt2.json"));
        QString err;
        QCOMPARE(runCli({QStringLiteral("compute"), kGpt2, QStringLiteral("--mask"),
                         QStringLiteral("causal"), QStringLiteral("--dk"), QStringLiteral("64"),
                         QStringLiteral("-o"), out},
                        &err),
                 cli::kExitOk);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(doc.value(QStringLiteral("format")).toString(),
                 QStringLiteral("attnscope-compute"));
        const QJsonArray layers = doc.value(QStringLiteral("layers")).toArray();
        QCOMPARE(layers.size(), 12);

        const attn::AttentionData data = attn::io::load_attention(kGpt2.toStdString());
        const attn::AttentionComponent* reference = nullptr;
        for (const auto& c : data.components)
            if (c.name == "attention") reference = &c;
        QVERIFY(reference);
        double worst = 0;
        for (int l = 0; l < 12; ++l) {
            const QJsonArray heads =
                layers.at(l).toObject().value(QStringLiteral("heads")).toArray();
            QCOMPARE(heads.size(), 12);
            for (int h = 0; h < 12; ++h) {
                const QJsonArray w =
                    heads.at(h).toObject().value(QStringLiteral("weights")).toArray();
                const attn::Matrix& ref = reference->at(l, h);
                QCOMPARE(w.size(), qsizetype(ref.rows()));
                for (int i = 0; i < ref.rows(); ++i) {
                    const QJsonArray row = w.at(i).toArray();
                    for (int j = 0; j < ref.cols(); ++j)
                        worst = std::max(worst, std::abs(row.at(j).toDouble() - ref(i, j)));
                }
            }
        }
        qInfo("max |weights − GPT-2 attention| = %.3g", worst);
        QVERIFY(worst <= 1e-6);
    }

    void unscaledGpt2Saturates() {
        // Without 1/√d_k the last query's weights collapse onto fewer keys.
        const QString scaled = dir_.filePath(QStringLiteral("s.npz"));
        const QString unscaled = dir_.filePath(QStringLiteral("u.npz"));
        QCOMPARE(runCli({QStringLiteral("compute"), kGpt2, QStringLiteral("--mask"),
                         QStringLiteral("causal"), QStringLiteral("-o"), scaled}),
                 cli::kExitOk);
        QCOMPARE(runCli({QStringLiteral("compute"), kGpt2, QStringLiteral("--mask"),
                         QStringLiteral("causal"), QStringLiteral("--no-scale"),
                         QStringLiteral("-o"), unscaled}),
                 cli::kExitOk);
        QFile a(scaled), b(unscaled);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QVERIFY(a.readAll() != b.readAll());
    }

    void renderWritesTheFigure() {
        const QString out = dir_.filePath(QStringLiteral("r.png"));
        QCOMPARE(runCli({QStringLiteral("render"), kGpt2, QStringLiteral("--layer"),
                         QStringLiteral("11"), QStringLiteral("--size"), QStringLiteral("500x400"),
                         QStringLiteral("-o"), out}),
                 cli::kExitOk);
        QCOMPARE(QImage(out).size(), QSize(500, 400));
    }

    void exitCodes() {
        QString err;
        QCOMPARE(runCli({QStringLiteral("render"), QStringLiteral("--heads"), QStringLiteral("x"),
                         QStringLiteral("-o"), dir_.filePath(QStringLiteral("x.png"))},
                        &err),
                 cli::kExitUsage);
        QVERIFY(err.contains(QStringLiteral("--heads")));
        QCOMPARE(runCli({QStringLiteral("render"), dir_.filePath(QStringLiteral("no.npy")),
                         QStringLiteral("-o"), dir_.filePath(QStringLiteral("x.png"))},
                        &err),
                 cli::kExitInput);
        QVERIFY(err.contains(QStringLiteral("no.npy")));
        QCOMPARE(runCli({QStringLiteral("render"), QStringLiteral("-o"),
                         dir_.filePath(QStringLiteral("missing/x.png"))}),
                 cli::kExitOutput);
        QCOMPARE(runCli({QStringLiteral("--version")}), cli::kExitOk);
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(CliComputeTest)
#include "cli_compute_test.moc"
