// AttnScope — File ▸ Open / Save / Save As / Recent, drag and drop, unsaved-changes prompt,
// autosave and crash recovery. GPL-3.0-or-later.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>

class AlertBanner;
class MainWindow;
class QAction;
class QMenu;
class QTimer;
struct BatchSummary;

namespace attn {
struct SceneSpec;
}

namespace fileio {

class AutosaveFile;
struct ReopenedSeq2Seq;

/// The files a document is: the session Save writes ("" until it is saved as one) and, for a
/// document that is no session, the file it came from (a token text; "" when untitled). Each
/// Open, and each model opened, starts a new one in its own undo step; Save As names the one on
/// show, in every undo state that belongs to it.
struct DocumentFiles {
    QString session;
    QString opened;
};

/// Every way a file enters or leaves the window goes through openFile / saveTo. Opening is
/// all-or-nothing: a file that fails to load leaves the scene untouched and explains itself in
/// a message box naming the file; a good one becomes one undo step.
class FileController : public QObject {
    Q_OBJECT
  public:
    /// Connects the window's File actions, Recent menu, drops and close prompt.
    explicit FileController(MainWindow* window);
    ~FileController() override;

    /// After the unsaved-changes question, loads path (any supported kind) into the scene;
    /// false when cancelled or (with a message box unless quiet) when it cannot be read.
    bool openFile(const QString& path);
    /// Opens File ▸ Examples entry `index` (see io/examples.hpp); false when it cannot.
    bool openExample(int index);
    /// What File ▸ Open, Recent and a file handed over by another process do: the question
    /// about unsaved changes (as File ▸ New and closing ask it), then openFile. False when the
    /// user cancels, a load is running, or the file cannot be read.
    bool openReplacing(const QString& path);
    /// After the unsaved-changes question, a file dialog, then the file.
    void openWithDialog();
    /// The open dialog's filter: attn::io::open_dialog_filter(), names translated.
    static QString openFilter();
    /// Loads explicit embeddings (.npy / .csv) for the current tokens.
    void loadEmbeddingsWithDialog();
    /// File ▸ New: after the unsaved-changes question, the default synthetic scene in a new,
    /// untitled document (the undo history starts again).
    bool newScene();
    /// File ▸ Close Data: back to the synthetic scene the loaded file replaced (undoable).
    void closeData();
    /// Makes SPEC the scene and FILES the document in one undo step WHAT (an Open, a model
    /// opened): undoing it gives the previous document back with its files, so that Save
    /// writes the document on show, never the one undone.
    void replaceDocument(const attn::SceneSpec& spec, const QString& what,
                         DocumentFiles files = {});
    /// Writes the session to its file, asking for one the first time.
    bool save();
    bool saveAs();
    /// Writes the session to path atomically (core's save_session); marks the scene clean on
    /// success.
    bool saveTo(const QString& path, QString* error);
    /// Asks what to do with unsaved changes; false when the user cancels. Quiet (tests), nobody
    /// can answer: true.
    bool maybeSave();

    /// The file whose presence marks a folder the Python module wrote only to hand its files
    /// to the window (python/attnscope/files.py's scratch_folder): none of them is the user's
    /// document, so none goes into File ▸ Recent.
    static constexpr const char* kScratchMarker = ".attnscope-scratch";
    /// Whether PATH lies in such a folder.
    static bool isScratchFile(const QString& path);

    /// The session file Save writes ("" when the document is no session yet: Save asks).
    const QString& currentFile() const { return doc_->session; }
    /// The file whose name is the window's title: the session, else the loaded data or token
    /// file, else "" (untitled).
    QString documentPath() const;
    /// Whether Save embeds the loaded attention in the session instead of referencing its file.
    bool embedData() const;
    void setEmbedData(bool on);
    /// No message boxes: failures only return false (tests).
    void setQuiet(bool quiet) { quiet_ = quiet; }
    /// Whether a load is running (its progress dialog's event loop starts no other).
    bool busy() const { return busy_; }
    /// The last error message (for tests and the status bar).
    const QString& lastError() const { return lastError_; }
    /// The last open's warning: a session whose model folder holds another model than it
    /// recorded (shown in a message box unless quiet, and in the status bar); "" when none.
    const QString& lastWarning() const { return lastWarning_; }

    /// This window's autosave file (see AutosaveFile: one per window, locked while it lives).
    QString autosavePath() const;
    /// Where every instance's autosave lives (QStandardPaths::AppDataLocation).
    static QString autosaveFolder();
    /// Writes the autosave file now when there are unsaved changes (the timer does, every
    /// minute). When a write fails (a full disk, a folder that is not writable) the window says
    /// so at once, in a banner and the status bar naming the file and the reason, and tries
    /// again every 10 s until a write succeeds, which takes the banner away.
    void autosave();
    /// The banner that says the autosave fails (hidden while it works).
    AlertBanner* autosaveBanner() const { return autosaveBanner_; }
    /// How often unsaved changes are autosaved, and a failed autosave tried again (tests
    /// shorten them; 60 s and 10 s).
    void setAutosaveIntervals(int everyMs, int retryMs);
    /// How the free bytes of the autosave's volume are read (tests stand in a full disk);
    /// −1: unknown.
    void setVolumeProbe(std::function<qint64(const QString& folder)> probe);
    /// Offers, one by one and newest first, every autosave that an instance which did not close
    /// normally left (called once, after the window is shown), naming its document and time. A
    /// live instance's autosave is neither offered nor deleted. The first one accepted is
    /// restored, keeping its session file (title, Save), and the rest are kept for the next
    /// start; every declined one is removed.
    void offerRecovery();
    /// What the recovery question is about.
    struct Recovery {
        QString document;   ///< the file the autosaved scene was opened from ("" untitled)
        QDateTime savedAt;  ///< when it was autosaved
        int index = 1;      ///< 1…count: this autosave among the orphans found
        int count = 1;
    };
    /// The question asked for `r`: names the document and the time.
    static QString recoveryQuestion(const Recovery& r);
    /// Answers the recovery question: true restores the autosave.
    using RecoveryPrompt = std::function<bool(const Recovery& r)>;
    /// Replaces the message box that asks (tests answer without a modal dialog; a prompt is
    /// asked even when quiet). An empty function restores the message box.
    void setRecoveryPrompt(RecoveryPrompt prompt) { recoveryPrompt_ = std::move(prompt); }
    /// Who takes a session's encoder–decoder run (the Translation dock), just before the scene
    /// shows it.
    using Seq2SeqTaker = std::function<void(const ReopenedSeq2Seq& run)>;
    void setSeq2SeqTaker(Seq2SeqTaker take) { seq2seqTaker_ = std::move(take); }

  Q_SIGNALS:
    /// A batch result was opened (File ▸ Open, Recent, a drop, the command line): the Batch
    /// tab shows it; the scene and the document stay as they were.
    void batchOpened(std::shared_ptr<const BatchSummary> batch);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void addExamplesMenu(QMenu* file);
    /// openFile; `remember` puts the file in File ▸ Recent (not the autosave file, which goes).
    /// AS, when given, is the document the file becomes (a restored autosave's session);
    /// UNDO_TEXT names the undo step (empty: "Open FILE").
    bool open(const QString& path, bool remember, const DocumentFiles* as = nullptr,
              const QString& undoText = {});
    void fail(const QString& message);
    /// Puts PATH (absolute, existing) first in File ▸ Recent, unless it is a scratch file.
    void rememberFile(const QString& path);
    void updateTitle();
    QString startDirectory() const;
    /// Shows or clears the autosave's warning; ERROR "" when the last write succeeded.
    void setAutosaveError(const QString& error);
    /// At the first unsaved change, says at once (writing nothing) when the autosave's volume
    /// cannot hold an autosave: the first write comes only with the autosave timer.
    void checkAutosaveRoom();

    MainWindow* window_;
    QAction* saveAsAction_ = nullptr;
    QAction* embeddingsAction_ = nullptr;
    QAction* newAction_ = nullptr;
    QAction* closeDataAction_ = nullptr;
    QAction* embedAction_ = nullptr;
    QTimer* autosaveTimer_ = nullptr;
    AlertBanner* autosaveBanner_ = nullptr;
    int autosaveEveryMs_ = 60'000;
    int autosaveRetryMs_ = 10'000;
    qint64 autosaveBytes_ = 0;  ///< the last autosave's size
    std::function<qint64(const QString&)> volumeFree_;
    std::unique_ptr<AutosaveFile> autosave_;
    /// The document on show; shared with the undo steps of its states (Save As renames it).
    std::shared_ptr<DocumentFiles> doc_ = std::make_shared<DocumentFiles>();
    QString lastError_;
    QString lastWarning_;
    RecoveryPrompt recoveryPrompt_;
    Seq2SeqTaker seq2seqTaker_;
    bool quiet_ = false;
    bool busy_ = false;  ///< a load is running (its event loop must not start another)
};

}  // namespace fileio
