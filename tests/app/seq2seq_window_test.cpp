// QtTest: encoder–decoders (Marian, T5) in the window, driven with real events. A tiny random
// folder of each family (tests/cli/seq2seq_tiny.py) opens from Model ▸ Open Model; the source and
// target are typed into the Translation dock; the drawn cross-attention equals numpy's
// independent encoder–decoder (tests/cli/seq2seq_reference.py) within 1e-5, layer by layer;
// Translate gives numpy's greedy ids; the component picker switches the Heads and Model tabs to
// the encoder's and decoder's self-attention with their own axes; an ablated cross head changes
// what follows it as numpy's does; the Alignment lens names the model; broken folders are
// refused with a message naming the file, the scene untouched.
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <cmath>

#include "app_test_support.hpp"
#include "io/data_dock.hpp"
#include "io/data_io.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "lenses/lens_panel.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/view_state.hpp"
#include "tiny_folders.hpp"
#include "views/heatmap_grid.hpp"
#include "views/model_grid.hpp"
#include "views/qcp.hpp"

namespace {

const QString kScript = QStringLiteral(ATTN_CORE_TESTS_DIR "/../app/seq2seq_window_reference.py");
constexpr int kMaxTokens = 12;

/// numpy's answer for a family's folder, source and target (seq2seq_window_reference.py).
QJsonObject reference(const QString& family, const QString& dir, const QString& source,
                      const QString& target, QString* error) {
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"),
            {kScript, family, dir, source, target, QString::number(kMaxTokens)});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        *error = QString::fromUtf8(p.readAllStandardError());
        return {};
    }
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

std::vector<int> ids(const QJsonValue& v) {
    std::vector<int> out;
    for (const QJsonValue& x : v.toArray())
        out.push_back(x.toInt());
    return out;
}

/// Every head of the grid against LAYER of the reference's [L][H][rows][cols]: "" when each
/// drawn weight is within 1e-5.
QString compareDrawn(HeatmapGrid* grid, const QJsonValue& weights, int layer) {
    const QJsonArray heads = weights.toArray().at(layer).toArray();
    if (grid->headCount() != heads.size())
        return QStringLiteral("%1 heads drawn, %2 expected")
            .arg(grid->headCount())
            .arg(heads.size());
    double worst = 0;
    for (int h = 0; h < grid->headCount(); ++h) {
        const std::vector<double> got = test_support::drawn(grid->head(h));
        std::vector<double> want;
        for (const QJsonValue& row : heads.at(h).toArray())
            for (const QJsonValue& x : row.toArray())
                want.push_back(x.toDouble());
        if (got.size() != want.size())
            return QStringLiteral("head %1: %2 cells drawn, %3 expected")
                .arg(h)
                .arg(got.size())
                .arg(want.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            worst = std::max(worst, std::abs(got[i] - want[i]));
    }
    return worst <= 1e-5 ? QString() : QStringLiteral("off by %1").arg(worst);
}

/// With ATTN_SEQ2SEQ_SHOTS set (a folder), saves what W shows as NAME.png there (looking at it
/// under xvfb at several sizes and scales; the window then fills the screen).
void shot(MainWindow& w, const QString& name) {
    const QString dir = qEnvironmentVariable("ATTN_SEQ2SEQ_SHOTS");
    if (dir.isEmpty()) return;
    test_support::settleAll(w.computeService());
    w.grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png"));
}

/// Types TEXT over what EDIT holds, as a user does.
void retype(QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, text);
}

}  // namespace

class Seq2SeqWindowTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSeq2SeqWindowTest"));
    }

    void marianInTheWindow() {
        family(QStringLiteral("marian"), QStringLiteral("the cat sat on the mat"),
               QStringLiteral("die katze sass auf der matte"), QStringLiteral("<pad>"));
    }

    void t5InTheWindow() {
        family(QStringLiteral("t5"), QStringLiteral("the small cat walks to the old river"),
               QStringLiteral("die kleine katze geht zum alten fluss"), QStringLiteral("<pad>"));
    }

    void brokenFoldersAreRefusedNamingTheFile() {
        QTemporaryDir marian, t5;
        QString error;
        reference(QStringLiteral("marian"), marian.path(), QStringLiteral("a"), QStringLiteral("b"),
                  &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        reference(QStringLiteral("t5"), t5.path(), QStringLiteral("a"), QStringLiteral("b"),
                  &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(QFile::remove(marian.path() + QStringLiteral("/vocab.json")));
        QFile weights(t5.path() + QStringLiteral("/model.safetensors"));
        QVERIFY(weights.resize(weights.size() - 64));
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        const attn::SceneSpec before = w.scene()->spec();
        const int undo = w.scene()->undoStack()->count();
        QVERIFY(!models->openModel(marian.path()));
        QVERIFY2(models->lastError().contains(QStringLiteral("vocab.json")),
                 qPrintable(models->lastError()));
        QVERIFY(!models->openModel(t5.path()));
        QVERIFY2(models->lastError().contains(QStringLiteral("model.safetensors")),
                 qPrintable(models->lastError()));
        QVERIFY(w.scene()->spec() == before);
        QCOMPARE(w.scene()->undoStack()->count(), undo);
        QVERIFY(!models->seq2seqDock()->isVisible());
    }

  private:
    /// Types LAYER (counted from 1) into the Loaded data dock's layer box, Enter.
    static void showLayer(MainWindow& w, fileio::DataDock* data, int layer) {
        data->layerBox()->setFocus();
        data->layerBox()->selectAll();
        QTest::keyClicks(data->layerBox(), QString::number(layer));
        QTest::keyClick(data->layerBox(), Qt::Key_Return);
        test_support::settleAll(w.computeService());
        QCOMPARE(w.scene()->spec().layer, attn::Index(layer - 1));
    }

    static void showHeads(MainWindow& w) {
        w.tabs()->setCurrentIndex(
            test_support::pageOf(w.tabs(), QString::fromLatin1(view_keys::kTabHeads)));
        test_support::settleAll(w.computeService());
    }

    void family(const QString& name, const QString& source, const QString& target,
                const QString& start) {
        QTemporaryDir dir;
        QString error;
        const QJsonObject ref = reference(name, dir.path(), source, target, &error);
        QVERIFY2(error.isEmpty() && !ref.isEmpty(), qPrintable(error));
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        fileio::Seq2SeqDock* dock = models->seq2seqDock();
        QVERIFY(!dock->isVisible());
        if (qEnvironmentVariableIsSet("ATTN_SEQ2SEQ_SHOTS")) w.showMaximized();

        // Opened, it translates the scene's sentence and shows the cross-attention.
        QVERIFY2(models->openModel(dir.path()), qPrintable(models->lastError()));
        test_support::settleAll(w.computeService());
        QVERIFY(dock->isVisible());
        QVERIFY(w.scene()->spec().is_loaded());
        QCOMPARE(
            w.scene()->spec().data->components.at(std::size_t(w.scene()->spec().component)).name,
            std::string("Cross"));
        QVERIFY(!dock->targetEdit()->text().isEmpty() || !dock->translation().empty());

        // Translate the typed source (greedy, at most kMaxTokens): numpy's greedy ids, and the
        // cross-attention of the translation teacher-forced.
        retype(dock->sourceEdit(), source);
        dock->maxTokensBox()->setFocus();
        dock->maxTokensBox()->selectAll();
        QTest::keyClicks(dock->maxTokensBox(), QString::number(kMaxTokens));
        QTest::keyClick(dock->maxTokensBox(), Qt::Key_Return);
        QCOMPARE(dock->maxTokensBox()->value(), kMaxTokens);
        QSignalSpy finished(dock, &fileio::Seq2SeqDock::finished);
        QTest::mouseClick(dock->translateButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        test_support::settleAll(w.computeService());
        std::vector<int> got(dock->translation().begin(), dock->translation().end());
        QCOMPARE(got, ids(ref[QStringLiteral("greedy")]));
        QCOMPARE(compareDrawn(w.heatmapGrid(), ref[QStringLiteral("greedy_cross")], 0), QString());

        // Opened again, the model translates for itself: the target box held the last model's
        // output, not a typed target (another model's could exceed this one's positions).
        QVERIFY(dock->targetIsTranslation());
        w.scene()->undoStack()->setClean();  // nothing to save: no question before opening
        QVERIFY2(models->openModel(dir.path()), qPrintable(models->lastError()));
        test_support::settleAll(w.computeService());
        got.assign(dock->translation().begin(), dock->translation().end());
        QCOMPARE(got, ids(ref[QStringLiteral("greedy")]));
        QVERIFY(dock->targetIsTranslation());

        // The typed target, Enter: the teacher-forced run over source and target.
        retype(dock->targetEdit(), target);
        QTest::keyClick(dock->targetEdit(), Qt::Key_Return);
        QVERIFY(finished.wait(60000));
        test_support::settleAll(w.computeService());
        const std::vector<int> sourceIds = ids(ref[QStringLiteral("source_ids")]);
        const std::vector<int> targetIds = ids(ref[QStringLiteral("target_ids")]);
        SceneResultPtr shown = w.result();
        // Cross-attention: target tokens down (the start token first), source tokens across.
        QCOMPARE(shown->query_count(), attn::Index(targetIds.size()));
        QCOMPARE(shown->key_count(), attn::Index(sourceIds.size()));
        QCOMPARE(QString::fromStdString(shown->q_tokens.front()), start);
        QCOMPARE(QString::fromStdString(shown->k_tokens.back()), QStringLiteral("</s>"));
        QCOMPARE(compareDrawn(w.heatmapGrid(), ref[QStringLiteral("cross")], 0), QString());
        shot(w, name + QStringLiteral("-cross"));
        auto* data = w.findChild<fileio::DataDock*>();
        QVERIFY(data && data->isVisible());
        showLayer(w, data, 2);
        QCOMPARE(compareDrawn(w.heatmapGrid(), ref[QStringLiteral("cross")], 1), QString());

        // The component picker: decoder self-attention (target × target), then the encoder's
        // (source × source), in the Heads tab and the Model tab.
        QComboBox* component = data->componentBox();
        QCOMPARE(component->currentText(), QStringLiteral("Cross"));
        component->setFocus();
        QTest::keyClick(component, Qt::Key_Up);
        test_support::settleAll(w.computeService());
        QCOMPARE(component->currentText(), QStringLiteral("Decoder"));
        QCOMPARE(w.result()->key_count(), attn::Index(targetIds.size()));
        QCOMPARE(w.scene()->spec().layer, attn::Index(0));  // a component opens on its first
        QCOMPARE(compareDrawn(w.heatmapGrid(), ref[QStringLiteral("decoder")], 0), QString());
        showLayer(w, data, 2);
        QCOMPARE(compareDrawn(w.heatmapGrid(), ref[QStringLiteral("decoder")], 1), QString());
        QTest::keyClick(component, Qt::Key_Up);
        test_support::settleAll(w.computeService());
        QCOMPARE(component->currentText(), QStringLiteral("Encoder"));
        QCOMPARE(w.result()->query_count(), attn::Index(sourceIds.size()));
        QCOMPARE(compareDrawn(w.heatmapGrid(), ref[QStringLiteral("encoder")], 0), QString());
        auto* modelTab = w.findChild<QWidget*>(QStringLiteral("modelTab"));
        w.tabs()->setCurrentWidget(modelTab);
        test_support::settleAll(w.computeService());
        auto* grid = w.findChild<ModelGrid*>(QStringLiteral("modelGrid"));
        QCOMPARE(grid->thumbnails().queries, int(sourceIds.size()));
        QCOMPARE(grid->thumbnails().layers, 2);
        QTest::keyClick(component, Qt::Key_Down);
        QTest::keyClick(component, Qt::Key_Down);
        test_support::settleAll(w.computeService());
        QCOMPARE(grid->thumbnails().queries, int(targetIds.size()));
        QCOMPARE(grid->thumbnails().keys, int(sourceIds.size()));
        shot(w, name + QStringLiteral("-model-tab"));
        showHeads(w);
        showLayer(w, data, 2);

        // The Alignment lens shows the model's cross-attention, naming it.
        auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        auto* lens = w.findChild<LensPanel*>(QStringLiteral("lens_alignment"));
        w.tabs()->setCurrentWidget(theory);
        theory->setCurrentWidget(lens);
        test_support::settleAll(w.computeService());
        QVERIFY2(lens->readoutText().contains(QStringLiteral("Cross-attention of the model")),
                 qPrintable(lens->readoutText()));
        QVERIFY2(lens->readoutText().contains(
                     QStringLiteral("%1 × %2").arg(targetIds.size()).arg(sourceIds.size())),
                 qPrintable(lens->readoutText()));
        shot(w, name + QStringLiteral("-alignment"));
        // The max of the heads (the head box's last entry), then the translation step by step:
        // three target tokens' rows shown, the rest blank and said to be.
        auto* step = lens->findChild<QSlider*>();
        QVERIFY(step && step->maximum() == int(targetIds.size()));
        QComboBox* head = nullptr;
        for (QComboBox* box : lens->findChildren<QComboBox*>())
            if (box->objectName() == QLatin1StringView("head")) head = box;
        QVERIFY(head);
        head->setFocus();
        QTest::keyClick(head, Qt::Key_End);
        step->setFocus();
        QTest::keyClick(step, Qt::Key_Home);
        QTest::keyClick(step, Qt::Key_Right);
        QTest::keyClick(step, Qt::Key_Right);
        test_support::settleAll(w.computeService());
        QCOMPARE(step->value(), 3);
        QVERIFY2(
            lens->readoutText().contains(QStringLiteral("max of 4 heads")) &&
                lens->readoutText().contains(QStringLiteral("Step 3 of %1").arg(targetIds.size())),
            qPrintable(lens->readoutText()));
        // Blank is no weight (NaN, drawn as nothing), not a weight of 0 in the colour of 0.
        auto* cells = qobject_cast<QCPColorMap*>(lens->plots().front()->plottable(0));
        QVERIFY(cells);
        QVERIFY(!std::isnan(cells->data()->cell(0, 2)) && std::isnan(cells->data()->cell(0, 3)));
        QCOMPARE(cells->gradient().nanHandling(), QCPColorGradient::nhTransparent);
        showHeads(w);

        // Head 1 of layer 0's cross-attention ablated: layer 1's cross-attention follows numpy's
        // ablated run.
        retype(dock->ablateEdit(), QStringLiteral("cross.0.1"));
        dock->targetEdit()->setFocus();
        QTest::keyClick(dock->targetEdit(), Qt::Key_Return);
        QVERIFY(finished.wait(60000));
        test_support::settleAll(w.computeService());
        QCOMPARE(w.scene()->spec().layer, attn::Index(1));
        QCOMPARE(compareDrawn(w.heatmapGrid(), ref[QStringLiteral("cross_ablated")], 1), QString());
        QVERIFY(!compareDrawn(w.heatmapGrid(), ref[QStringLiteral("cross")], 1).isEmpty());
        // A head the model lacks is refused in the status line; the scene stays.
        const attn::SceneSpec before = w.scene()->spec();
        retype(dock->ablateEdit(), QStringLiteral("cross.9.0"));
        QTest::mouseClick(dock->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QVERIFY2(dock->statusLabel()->text().contains(QStringLiteral("9")),
                 qPrintable(dock->statusLabel()->text()));
        QVERIFY(w.scene()->spec() == before);
        w.scene()->undoStack()->setClean();
    }
};

QTEST_MAIN(Seq2SeqWindowTest)
#include "seq2seq_window_test.moc"
