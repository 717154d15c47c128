// AttnScope — File ▸ Open / Save / Save As / Recent, drag and drop, unsaved-changes prompt,
// autosave and crash recovery. GPL-3.0-or-later.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>
#include <functional>

class MainWindow;
class QAction;
class QMenu;
class QTimer;

namespace fileio {

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
    /// Shows a file dialog, then openFile.
    void openWithDialog();
    /// Loads explicit embeddings (.npy / .csv) for the current tokens.
    void loadEmbeddingsWithDialog();
    /// File ▸ New: after the unsaved-changes question, the default synthetic scene in a new,
    /// untitled document (the undo history starts again).
    bool newScene();
    /// File ▸ Close Data: back to the synthetic scene the loaded file replaced (undoable).
    void closeData();
    /// Writes the session to its file, asking for one the first time.
    bool save();
    bool saveAs();
    /// Writes the session to path atomically (core's save_session); marks the scene clean on
    /// success.
    bool saveTo(const QString& path, QString* error);
    /// Asks what to do with unsaved changes; false when the user cancels. Quiet (tests), nobody
    /// can answer: true.
    bool maybeSave();

    /// The session file Save writes ("" when the document is no session yet: Save asks).
    const QString& currentFile() const { return currentFile_; }
    /// The file whose name is the window's title: the session, else the loaded data or token
    /// file, else "" (untitled).
    QString documentPath() const;
    /// Whether Save embeds the loaded attention in the session instead of referencing its file.
    bool embedData() const;
    void setEmbedData(bool on);
    /// No message boxes: failures only return false (tests).
    void setQuiet(bool quiet) { quiet_ = quiet; }
    /// The last error message (for tests and the status bar).
    const QString& lastError() const { return lastError_; }

    /// Where the autosave file lives (QStandardPaths::AppDataLocation).
    static QString autosavePath();
    /// Writes the autosave file now when there are unsaved changes.
    void autosave();
    /// When an autosave file is left over from a session that did not close cleanly, offers to
    /// restore it (called once, after the window is shown), naming the document and the time.
    /// A restored document keeps its session file. Either way the file is removed.
    void offerRecovery();
    /// Answers the recovery question for the autosave written at `savedAt`: true restores it.
    using RecoveryPrompt = std::function<bool(const QDateTime& savedAt)>;
    /// Replaces the message box that asks (tests answer without a modal dialog; a prompt is
    /// asked even when quiet). An empty function restores the message box.
    void setRecoveryPrompt(RecoveryPrompt prompt) { recoveryPrompt_ = std::move(prompt); }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  public:
    /// Which document an autosave belongs to, kept beside it so that a restore can name it and
    /// Save writes where the lost session would have.
    struct AutosaveOrigin {
        QString session;   ///< the session file Save wrote ("" when untitled)
        QString document;  ///< the file the title named (session, data or token file)
    };
    /// The file beside `autosaveFile` that holds its AutosaveOrigin.
    static QString autosaveOriginPath(const QString& autosaveFile);
    /// The recovery question: what is restored (document name or untitled) and when it was
    /// autosaved.
    static QString recoveryQuestion(const AutosaveOrigin& origin, const QDateTime& savedAt);

  private:
    void writeAutosaveOrigin(const QString& autosaveFile) const;
    static AutosaveOrigin readAutosaveOrigin(const QString& autosaveFile);
    /// After a restore: the document is again the one autosaved (title, Save), still modified.
    void restoreOrigin(const AutosaveOrigin& origin);
    void addExamplesMenu(QMenu* file);
    /// openFile; `remember` puts the file in File ▸ Recent (not the autosave file, which goes).
    bool open(const QString& path, bool remember);
    void fail(const QString& message);
    void updateTitle();
    QString startDirectory() const;

    MainWindow* window_;
    QAction* saveAsAction_ = nullptr;
    QAction* embeddingsAction_ = nullptr;
    QAction* newAction_ = nullptr;
    QAction* closeDataAction_ = nullptr;
    QAction* embedAction_ = nullptr;
    QString openedFile_;  ///< the last non-session file opened (token text), for the title
    QTimer* autosaveTimer_ = nullptr;
    QString currentFile_;
    QString lastError_;
    RecoveryPrompt recoveryPrompt_;
    bool quiet_ = false;
    bool busy_ = false;  ///< a load is running (its event loop must not start another)
};

}  // namespace fileio
