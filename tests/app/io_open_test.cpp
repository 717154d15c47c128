// QtTest: opening files through the window's one openFile path. A bad file leaves the scene
// exactly as it was (spec, undo stack, selection); a good one is one undo step.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QMenu>
#include <QProgressDialog>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextStream>
#include <QUndoStack>
#include <QtTest>
#include <thread>

#include "attn/io/formats.hpp"
#include "attn/util/error.hpp"

#include "app_test_support.hpp"
#include "io/data_dock.hpp"
#include "io/data_io.hpp"
#include "io/examples.hpp"
#include "io/file_controller.hpp"
#include "io/open_guard.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "views/model_grid.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/progress_runner.hpp"

namespace {
using test_support::fixture;
// The core tests' corpus of malformed files (a compile definition: __FILE__ may be relative).
QString malformedDir() {
    return QStringLiteral(ATTN_CORE_TEST_DATA_DIR "/malformed");
}
}  // namespace

class IoOpenTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    /// File ▸ Open's filter is the format registry's (untranslated here), and a file of each
    /// registered extension matches one of its patterns.
    void openFilterIsTheRegistrys() {
        const QString filter = fileio::FileController::openFilter();
        QCOMPARE(filter, QString::fromStdString(attn::io::open_dialog_filter()));
        for (const attn::io::Format& f : attn::io::formats())
            for (const char* e : f.extensions)
                QVERIFY2(filter.section(QStringLiteral(";;"), 0, 0)
                             .contains(QStringLiteral("*") + QLatin1StringView(e)),
                         e);
    }

    void examplesOpenFromTheFileMenu() {
        // File ▸ Examples as a user reaches it: the menu's own actions, triggered.
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        auto* menu = w.fileMenu()->findChild<QMenu*>(QStringLiteral("menuExamples"));
        QVERIFY(menu);
        QVERIFY(w.fileMenu()->actions().contains(menu->menuAction()));
        const QList<QAction*> actions = menu->actions();
        QCOMPARE(actions.size(), 3);
        struct Expected {
            const char* file;
            attn::Index layers, heads, nq;
            bool scores;
            const char* firstToken;
        };
        const Expected expected[] = {
            {"gpt2_small_ex0.npz", 12, 12, 6, true, "Data"},
            {"bertviz_distilbert_headview.json", 6, 12, 8, false, "[CLS]"},
            {"bertviz_gpt2_headview.json", 12, 12, 10, false, "The"},
        };
        for (int i = 0; i < 3; ++i) {
            const Expected& e = expected[i];
            const int undoCount = w.scene()->undoStack()->count();
            actions.at(i)->trigger();
            QVERIFY2(files.lastError().isEmpty(), qPrintable(files.lastError()));
            const attn::SceneSpec& spec = w.scene()->spec();
            QVERIFY2(spec.data, e.file);
            const attn::AttentionComponent& c = spec.data->components.at(0);
            QCOMPARE(c.layers, e.layers);
            QCOMPARE(c.heads, e.heads);
            QCOMPARE(attn::Index(c.q_tokens.size()), e.nq);
            QCOMPARE(c.are_scores, e.scores);
            QCOMPARE(QString::fromStdString(c.q_tokens.front()).trimmed(),
                     QString::fromLatin1(e.firstToken));
            QVERIFY2(QString::fromStdString(spec.data->source).endsWith(QLatin1StringView(e.file)),
                     spec.data->source.c_str());
            QCOMPARE(w.scene()->undoStack()->count(), undoCount + 1);  // one undo step each
            // The program's copy equals the fixture it was built from, byte for byte.
            QFile shipped(fileio::exampleResource(fileio::examples().at(i)));
            QFile fixtureFile(fixture(e.file));
            QVERIFY(shipped.open(QIODevice::ReadOnly) && fixtureFile.open(QIODevice::ReadOnly));
            QVERIFY(shipped.readAll() == fixtureFile.readAll());
        }
        // Examples are one click away; they do not crowd File ▸ Open Recent.
        QVERIFY(!w.recentMenu()->isEnabled());
        // The About box names each example's licence.
        const QString notice = fileio::examplesNoticeHtml();
        QVERIFY(notice.contains(QStringLiteral("Apache License 2.0")));
        QVERIFY(notice.contains(QStringLiteral("MIT License")));
    }

    void badFileLeavesSceneUntouched() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        attn::SceneSpec edited = w.scene()->spec();
        edited.heads = 8;
        w.scene()->setSpec(edited, QStringLiteral("edit"));
        const attn::SceneSpec before = w.scene()->spec();
        const int undoCount = w.scene()->undoStack()->count();
        QTemporaryDir dir;
        const QString junk = dir.filePath(QStringLiteral("junk.npy"));
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\x93NUMPY but not really");
        f.close();
        for (const QString& path : {junk, dir.filePath(QStringLiteral("missing.npz"))}) {
            QVERIFY(!files.openFile(path));
            QVERIFY2(files.lastError().contains(QFileInfo(path).fileName()),
                     qPrintable(files.lastError()));
            QVERIFY(w.scene()->spec() == before);
            QCOMPARE(w.scene()->undoStack()->count(), undoCount);
        }
    }

    void malformedCorpusLeavesSceneUntouched() {
        QDir corpus(malformedDir());
        const QStringList names = corpus.entryList(QDir::Files);
        QVERIFY2(!names.isEmpty(),
                 qPrintable(QStringLiteral("no malformed corpus in ") + corpus.absolutePath()));
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        const attn::SceneSpec before = w.scene()->spec();
        int rejected = 0;
        for (const QString& name : names) {
            if (name.endsWith(QLatin1StringView(".tsv")) ||
                name.endsWith(QLatin1StringView(".csv")))
                continue;
            QVERIFY2(!files.openFile(corpus.filePath(name)), qPrintable(name));
            QVERIFY2(w.scene()->spec() == before, qPrintable(name));
            ++rejected;
        }
        QVERIFY(rejected >= 30);
        QCOMPARE(w.scene()->undoStack()->count(), 0);
    }

    void goodFileIsOneUndoStep() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        const attn::SceneSpec before = w.scene()->spec();
        QVERIFY2(files.openFile(fixture("gpt2_small_ex0.npz")), qPrintable(files.lastError()));
        QVERIFY(w.scene()->spec().data);
        QCOMPARE(w.scene()->spec().data->components.size(), std::size_t(2));
        QCOMPARE(w.scene()->undoStack()->count(), 1);
        test_support::settle(w.computeService());
        QVERIFY(w.result());
        QCOMPARE(w.result()->q_tokens.size(), std::size_t(6));
        QCOMPARE(w.result()->heads.size(), std::size_t(12));
        QVERIFY(w.result()->has_scores);  // raw scores: the controls act on them
        // GPT-2's own weights are causal, so its scores open under the causal mask and show
        // exactly the model's weights (layer 1, head 1 against the file's "attention").
        QCOMPARE(w.scene()->spec().mask.kind, attn::MaskKind::Causal);
        const attn::Matrix& model = w.scene()->spec().data->components[1].at(0, 0);
        QVERIFY((w.result()->heads[0].weights - model).cwiseAbs().maxCoeff() < 1e-5f);
        w.scene()->undoStack()->undo();
        QVERIFY(w.scene()->spec() == before);
    }

    void weightsFileIsWeightsOnly() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY(files.openFile(fixture("bertviz_distilbert_headview.json")));
        test_support::settle(w.computeService());
        QVERIFY(!w.result()->has_scores);
        QCOMPARE(w.result()->layers, attn::Index(6));
    }

    void tokenFileSetsTokens() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("tokens.txt"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\xEF\xBB\xBFthe\r\ncat\r\nsat\r\n");
        f.close();
        QVERIFY2(files.openFile(path), qPrintable(files.lastError()));
        QCOMPARE(w.scene()->spec().tokens, (std::vector<std::string>{"the", "cat", "sat"}));
        QVERIFY(!w.scene()->spec().data);
    }

    void modelGridOpensLayerAndHead() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY(files.openFile(fixture("bertviz_gpt2_headview.json")));
        ModelGrid grid(w.scene());
        grid.resize(900, 700);
        grid.refreshNow();
        QCOMPARE(grid.thumbnails().layers, 12);
        QCOMPARE(grid.thumbnails().heads, 12);
        QSignalSpy activated(&grid, &ModelGrid::headActivated);
        grid.openHead(7, 3);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(w.scene()->spec().layer, attn::Index(7));
        QCOMPARE(w.scene()->selection().head, 3);
        w.scene()->undoStack()->undo();  // the layer change is undoable
        QCOMPARE(w.scene()->spec().layer, attn::Index(0));
    }

    // A slow load shows a progress dialog whose Cancel makes core's Progress throw Cancelled.
    void slowWorkCanBeCancelled() {
        QWidget parent;
        QTimer poll;
        bool sawDialog = false;
        connect(&poll, &QTimer::timeout, &parent, [&] {
            auto* dialog = parent.findChild<QProgressDialog*>();
            if (dialog && dialog->isVisible()) {
                sawDialog = true;
                auto* button = dialog->findChild<QPushButton*>();
                QVERIFY(button);
                button->click();  // as the user would
            }
        });
        poll.start(20);
        bool cancelled = false;
        // The work is a named job of the one scheduler.
        QStringList finishedJobs;
        connect(&Scheduler::instance(), &Scheduler::jobFinished, &parent,
                [&](const QString& name) { finishedJobs << name; });
        try {
            runWithProgress(&parent, QStringLiteral("load file"), QStringLiteral("Loading…"),
                            [](attn::Progress* p) {
                                for (int i = 0;; ++i) {  // ends only through Cancel
                                    attn::report(p, (i % 1000) / 1000.0);
                                    std::this_thread::yield();
                                }
                            });
        } catch (const attn::Cancelled&) {
            cancelled = true;
        }
        QVERIFY(sawDialog);
        QVERIFY(cancelled);
        QVERIFY(finishedJobs.contains(QStringLiteral("load file")));
        // Fast work shows nothing and returns its exceptions on the caller's thread.
        QVERIFY_THROWS_EXCEPTION(
            attn::FormatError,
            runWithProgress(&parent, QStringLiteral("load file"), QString(),
                            [](attn::Progress*) { throw attn::FormatError("x.npy: broken"); }));
    }

    // One wording for every open that does not happen, file or model: a cancel goes quietly to
    // the status bar; a lack of memory or a broken file is a failure naming the subject and
    // promising the scene is unchanged; a load that finishes reports nothing.
    void openGuardSaysWhatWentWrong() {
        QMainWindow window;
        QString lastError;
        QStringList failures;
        const fileio::OpenReport report{window.statusBar(), &lastError,
                                        [&](const QString& m) { failures << m; }};
        const auto open = [&](const std::function<void(attn::Progress*)>& load) {
            lastError.clear(), failures.clear();
            return fileio::openGuarded(&window, QStringLiteral("load file"), QString(),
                                       QStringLiteral("a.npy"), load, report);
        };
        QVERIFY(open([](attn::Progress*) {}));
        QVERIFY(lastError.isEmpty() && failures.isEmpty());
        QVERIFY(!open([](attn::Progress*) { throw attn::Cancelled(); }));
        QCOMPARE(lastError, QStringLiteral("Opening a.npy was cancelled."));
        QCOMPARE(window.statusBar()->currentMessage(), lastError);
        QVERIFY(failures.isEmpty());
        QVERIFY(!open([](attn::Progress*) { throw std::bad_alloc(); }));
        QCOMPARE(failures, QStringList{QStringLiteral(
                               "Cannot open a.npy: there is not enough memory to load it.\n\n"
                               "The current scene is unchanged.")});
        QVERIFY(!open([](attn::Progress*) { throw attn::FormatError("a.npy: truncated header"); }));
        QCOMPARE(failures,
                 QStringList{QStringLiteral("Cannot open a.npy:\n\na.npy: truncated "
                                            "header\n\nThe current scene is unchanged.")});
    }

    // The assembled window: weights disable every scene control with the reason in the
    // tooltip; raw scores keep scaling, mask and temperature live. ATTN_IO_SHOTS=dir saves
    // screenshots of the Heads and Model tabs.
    void controlsFollowTheKindOfData() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        auto* files = w.findChild<fileio::FileController*>();
        QVERIFY(files);
        files->setQuiet(true);
        w.resize(1400, 900);
        w.setAttribute(Qt::WA_DontShowOnScreen);
        w.show();
        ControlsDock* c = w.controlsDock();
        QVERIFY(files->openFile(fixture("bertviz_distilbert_headview.json")));
        test_support::settleAll(w.computeService());
        QVERIFY(!c->temperatureBox()->isEnabled());
        // The box shows "—"; its slider is disabled too and shows no stale τ (issue 26 item 2).
        QCOMPARE(c->temperatureBox()->text(), QStringLiteral("—"));
        QVERIFY(!c->temperatureSlider()->isEnabled());
        QVERIFY(!c->temperatureSlider()->isVisibleTo(c));
        QVERIFY(!c->maskBox()->isEnabled());
        QVERIFY(c->temperatureBox()->toolTip().contains(QStringLiteral("post-softmax")));
        auto* dock = w.findChild<fileio::DataDock*>();
        QVERIFY(dock && dock->isVisible());
        QCOMPARE(dock->layerBox()->maximum(), 6);
        const QString shots = qEnvironmentVariable("ATTN_IO_SHOTS");
        test_support::settle(w.computeService());
        if (!shots.isEmpty()) w.grab().save(shots + QStringLiteral("/gui-distilbert-heads.png"));

        QVERIFY(files->openFile(fixture("gpt2_small_ex0.npz")));
        test_support::settleAll(w.computeService());
        QVERIFY(c->temperatureBox()->isEnabled());
        QVERIFY(c->temperatureSlider()->isEnabled() && c->temperatureSlider()->isVisibleTo(c));
        QVERIFY(c->maskBox()->isEnabled());
        QVERIFY(c->scaleBox()->isEnabled());
        QVERIFY(!c->headsBox()->isEnabled());
        QVERIFY(!c->temperatureBox()->toolTip().contains(QStringLiteral("Disabled")));
        QVERIFY(dock->dkBox()->isEnabled());
        QCOMPARE(dock->dkBox()->value(), 64.0);
        dock->layerBox()->setValue(5);  // shown from 1
        QCOMPARE(w.scene()->spec().layer, attn::Index(4));
        if (!shots.isEmpty()) {
            test_support::settle(w.computeService());
            w.grab().save(shots + QStringLiteral("/gui-gpt2-heads.png"));
            for (int i = 0; i < w.tabs()->count(); ++i)
                if (w.tabs()->tabText(i) == QStringLiteral("Model")) w.tabs()->setCurrentIndex(i);
            auto* model = w.findChild<ModelGrid*>();
            QVERIFY(model);
            model->refreshNow();
            w.grab().save(shots + QStringLiteral("/gui-gpt2-model.png"));
        }
        w.scene()->undoStack()->setClean();  // no unsaved-changes prompt on close
    }
};

QTEST_MAIN(IoOpenTest)
#include "io_open_test.moc"
