// QtTest: the Influence tab on an encoder–decoder's run, driven with real events. A tiny random
// Marian folder (tests/cli/seq2seq_tiny.py) opens from Model ▸ Open Model, a source and a
// target are typed into the Translation dock; the tab then shows the source's and the target's
// strips (core's attribute_seq2seq), and its part box picks the encoder's self-attention
// (source × source maps) and the cross-attention (target × source): every drawn per-head sum
// and the clicked head's map equal core's attention × gradient; a click on a target token of
// the top 5 explains it; a source column is not a prediction; the clicked cross head's row
// strip is the run's weights over the source and empty over the target. GPL-3.0-or-later.
#include <QAbstractItemView>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "app_test_support.hpp"
#include "attn/attribution/seq2seq_attribution.hpp"
#include "attn/scene/seq2seq_scene.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "marian_folder.hpp"
#include "model/influence_model.hpp"
#include "tiny_folders.hpp"
#include "views/cell_map.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_view.hpp"

namespace {

const QString kSource = QStringLiteral("the cat sat on the mat");
const QString kTarget = QStringLiteral("die katze sass auf der matte");

using test_support::writeMarianFolder;

/// With ATTN_INFLUENCE_SHOTS set (a folder), W's look as NAME.png there: to see the tab at
/// several sizes and scales.
void shot(MainWindow& w, const QString& name) {
    if (const QString dir = qEnvironmentVariable("ATTN_INFLUENCE_SHOTS"); !dir.isEmpty()) {
        test_support::settleAll(w.computeService());
        QVERIFY(w.grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
    }
}

/// A click into EDIT, Ctrl+A, then TEXT's keys: what was there is replaced.
void typeOver(QLineEdit* edit, const QString& text) {
    QTest::mouseClick(edit, Qt::LeftButton);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(edit, text);
}

/// Core's arrays of the run for TARGET at POSITION (a target position).
attn::attrib::AttributionResult cores(const QString& dir, attn::Index position,
                                      std::int32_t target) {
    const attn::model::Seq2SeqFolder f = attn::model::open_seq2seq(dir.toStdString());
    attn::attrib::Seq2SeqAttributionRequest ask;
    ask.methods = {"saliency", "attention_x_gradient"};
    ask.position = position;
    ask.target = target;
    return attn::attrib::attribute_seq2seq(*f.model, f.source->encode(kSource.toStdString()),
                                           attn::decoder_inputs(f, kTarget.toStdString()), ask);
}

const attn::attrib::NamedArray& array(const attn::attrib::AttributionResult& r,
                                      const std::string& name) {
    for (const auto& a : r.arrays)
        if (a.name == name) return a;
    throw std::runtime_error("no array " + name);
}

/// Head (L, H) of a [L,H,rows,cols] array.
attn::Matrix headOf(const attn::attrib::NamedArray& a, int l, int h) {
    const attn::Index rows = attn::Index(a.shape[2]), cols = attn::Index(a.shape[3]);
    const std::size_t at =
        (std::size_t(l) * a.shape[1] + std::size_t(h)) * std::size_t(rows * cols);
    return Eigen::Map<const attn::Matrix>(a.values.data() + at, rows, cols);
}

/// "" when every head's drawn sum and the shown head's map equal A's.
QString compareHeads(InfluenceView* view, const attn::attrib::NamedArray& a) {
    const attn::Matrix& sums = view->headMap()->values();
    if (sums.rows() != attn::Index(a.shape[0]) || sums.cols() != attn::Index(a.shape[1]))
        return QStringLiteral("per-head map %1 × %2").arg(sums.rows()).arg(sums.cols());
    double worst = 0, scale = 1e-6;
    for (int l = 0; l < sums.rows(); ++l)
        for (int h = 0; h < sums.cols(); ++h) {
            const double want = double(headOf(a, l, h).sum());
            worst = std::max(worst, std::abs(double(sums(l, h)) - want));
            scale = std::max(scale, std::abs(want));
        }
    const attn::Matrix want = headOf(a, view->model()->layer(), view->model()->head());
    const attn::Matrix& got = view->pairMap()->values();
    if (got.rows() != want.rows() || got.cols() != want.cols())
        return QStringLiteral("head map %1 × %2, core's %3 × %4")
            .arg(got.rows())
            .arg(got.cols())
            .arg(want.rows())
            .arg(want.cols());
    worst = std::max(worst, double((got - want).cwiseAbs().maxCoeff()));
    scale = std::max(scale, double(want.cwiseAbs().maxCoeff()));
    return worst <= 1e-5 * scale ? QString() : QStringLiteral("off by %1").arg(worst);
}

}  // namespace

class InfluenceSeq2SeqTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeInfluenceSeq2SeqTest"));
    }

    void partsOfAMarianRun() {
        QTemporaryDir dir;
        const QString written = writeMarianFolder(dir.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
        MainWindow w;
        w.resize(1280, 800);
        if (qEnvironmentVariableIsSet("ATTN_INFLUENCE_SHOTS") &&
            qEnvironmentVariableIsSet("ATTN_INFLUENCE_MAXIMIZED"))
            w.showMaximized();
        else
            w.show();
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QVERIFY2(models->openModel(dir.path()), qPrintable(models->lastError()));
        test_support::settleAll(w.computeService());
        fileio::Seq2SeqDock* dock = models->seq2seqDock();
        QSignalSpy finished(dock, &fileio::Seq2SeqDock::finished);
        typeOver(dock->sourceEdit(), kSource);
        typeOver(dock->targetEdit(), kTarget);
        QTest::keyClick(dock->targetEdit(), Qt::Key_Return);
        QVERIFY(finished.wait(60000));
        test_support::settleAll(w.computeService());

        auto* view = w.findChild<InfluenceView*>();
        QVERIFY(view);
        w.tabs()->setCurrentWidget(view);
        test_support::settleAll(w.computeService());
        const influence::Result* r = view->model()->result();
        QVERIFY2(r, qPrintable(view->status()->text()));
        const int ns = r->sourceTokens, n = int(r->tokens.size());
        QVERIFY(ns > 0 && n > ns);
        QVERIFY(view->componentBox()->isVisible());
        QCOMPARE(view->componentBox()->currentText(), QStringLiteral("Cross-attention"));
        // The default: the last target position's likeliest token.
        QCOMPARE(r->position, attn::Index(n - 1));
        QCOMPARE(r->target, r->topIds.back()[0]);
        attn::attrib::AttributionResult core = cores(dir.path(), n - 1 - ns, r->target);
        QVERIFY(std::abs(r->logit - core.logit) <= 1e-5 * (1 + std::abs(core.logit)));
        // The saliency strip: the source's, then the target's.
        const influence::Strip* saliency = influence::stripOf(*r, QStringLiteral("saliency"));
        std::vector<float> want = array(core, "source_saliency").values;
        const auto& targetSide = array(core, "target_saliency").values;
        want.insert(want.end(), targetSide.begin(), targetSide.end());
        QCOMPARE(saliency->values.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
            QVERIFY(std::abs(saliency->values[i] - double(want[i])) <= 1e-5 * (1 + want[i]));
        QVERIFY(!influence::stripOf(*r, QStringLiteral("rollout"))->refusal.isEmpty());

        // The cross-attention's heads: target × source.
        QCOMPARE(compareHeads(view, array(core, "cross_attention_x_gradient")), QString());
        // The encoder's, picked with the keyboard on the part box: source × source.
        QComboBox* box = view->componentBox();
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Home);
        QCOMPARE(view->model()->component(), attn::model::Component::Encoder);
        QCOMPARE(view->pairMap()->values().rows(), attn::Index(ns));
        QCOMPARE(compareHeads(view, array(core, "encoder_attention_x_gradient")), QString());
        shot(w, QStringLiteral("influence-marian-encoder"));
        // Back to the cross-attention: the popup opened with the mouse, its last row chosen
        // with the keyboard.
        QTest::mouseClick(box, Qt::LeftButton);
        QTRY_VERIFY(box->view()->isVisible());
        QTest::keyClick(box->view(), Qt::Key_End);
        QTest::keyClick(box->view(), Qt::Key_Return);
        QTRY_COMPARE(view->model()->component(), attn::model::Component::Cross);
        // A click on layer 2, head 3 of the per-head map.
        view->pages()->setCurrentIndex(0);
        QTest::mouseClick(view->headMap(), Qt::LeftButton, {}, view->headMap()->cellCentre(1, 2));
        QCOMPARE(view->model()->layer(), 1);
        QCOMPARE(view->model()->head(), 2);
        QCOMPARE(compareHeads(view, array(core, "cross_attention_x_gradient")), QString());
        // The last strip: that head's cross-attention row at P over the source, and no value
        // over the target (it reads none of it).
        {
            const attn::model::Seq2SeqFolder f =
                attn::model::open_seq2seq(dir.path().toStdString());
            const attn::model::Seq2SeqRun run =
                attn::model::teacher_forced(*f.model, f.source->encode(kSource.toStdString()),
                                            attn::decoder_inputs(f, kTarget.toStdString()), {});
            const InfluenceStrips::Row& last = view->strips()->rows().back();
            QCOMPARE(last.label, QStringLiteral("Attention L2 H3"));
            QCOMPARE(int(last.values.size()), n);
            const attn::Matrix& weights = run.cross[1][2];
            for (int j = 0; j < n; ++j)
                QVERIFY(j < ns ? std::abs(last.values[std::size_t(j)] -
                                          double(weights(n - 1 - ns, j))) <= 1e-6
                               : std::isnan(last.values[std::size_t(j)]));
            QVERIFY(view->strips()
                        ->tipAt(int(view->strips()->rows().size()) - 1, ns)
                        .contains(QStringLiteral("does not read")));
        }
        shot(w, QStringLiteral("influence-marian-cross"));

        // The top 5 has the target positions alone (the source's are read, not predicted):
        // rank 2 at target position 3, explained, core's again.
        CellMap* picker = view->picker();
        QCOMPARE(picker->values().cols(), attn::Index(n - ns));
        const int column = ns + 3;
        QTest::mouseClick(picker, Qt::LeftButton, {}, picker->cellCentre(1, 3));
        test_support::settleAll(w.computeService());
        r = view->model()->result();
        QVERIFY2(r, qPrintable(view->status()->text()));
        QCOMPARE(r->position, attn::Index(column));
        QCOMPARE(r->target, r->topIds[std::size_t(column)][1]);
        core = cores(dir.path(), 3, r->target);
        QCOMPARE(compareHeads(view, array(core, "cross_attention_x_gradient")), QString());
        // The first column is the target's first position: rank 1 there is explained.
        QTest::mouseClick(picker, Qt::LeftButton, {}, picker->cellCentre(0, 0));
        test_support::settleAll(w.computeService());
        QCOMPARE(view->model()->result()->position, attn::Index(ns));
        QCOMPARE(view->model()->result()->target,
                 view->model()->result()->topIds[std::size_t(ns)][0]);
    }
};

QTEST_MAIN(InfluenceSeq2SeqTest)
#include "influence_seq2seq_test.moc"
