// AttnScope — the Batch tab wired into the window: a batch result opened by File ▸ Open shows in
// it, and an example clicked there opens as the window's run with the same analysis.
// GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

class BatchDocument;
class BatchView;
class InterventionsTab;
class MainWindow;
struct BatchSummary;

namespace fileio {

class FileController;
class ModelController;

/// Owns the window's BatchDocument and the Batch tab (added when the first batch result opens).
/// openExample(i) opens the model folder the result names (unless it is the one running), puts
/// example i's prompt in the sentence and runs its analysis live: patch → the Interventions
/// tab's patching with its corrupted prompt and answers, census → the Model tab's census,
/// anything else → the Heads tab. A folder that is missing or does not open is said in the
/// Batch tab's status line naming the folder and the file; the batch result stays on show and
/// the scene as it was.
class BatchRuns : public QObject {
    Q_OBJECT
  public:
    BatchRuns(MainWindow* window, FileController* files, ModelController* models,
              InterventionsTab* interventions, QWidget* modelTab);

    BatchDocument* document() const { return doc_; }
    BatchView* view() const { return view_; }
    /// Shows BATCH in the Batch tab and brings the tab forward.
    void show(std::shared_ptr<const BatchSummary> batch);
    /// Opens example INDEX's run; false (the reason in lastError and the status line) when it
    /// cannot.
    bool openExample(int index);
    const QString& lastError() const { return lastError_; }

  private:
    bool refuse(const QString& message);

    MainWindow* window_;
    ModelController* models_;
    InterventionsTab* interventions_;
    QWidget* modelTab_;
    BatchDocument* doc_;
    BatchView* view_;
    bool added_ = false;
    QString lastError_;
};

}  // namespace fileio
