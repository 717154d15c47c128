// AttnScope — the Interventions tab on an encoder–decoder's run (Marian, T5): the logit lens over
// the decoder's layers, and each head's ablation and patching effect for the component picked
// (Encoder, Decoder or Cross). GPL-3.0-or-later.
#pragma once

#include <QWidget>
#include <functional>
#include <optional>

#include "attn/interventions/lens.hpp"
#include "attn/interventions/seq2seq_ablation_scan.hpp"
#include "attn/interventions/seq2seq_patching.hpp"
#include "model/seq2seq_run.hpp"

class CellMap;
class QComboBox;
class QLabel;
class PageStatus;
class QLineEdit;
class QPushButton;
class QTabWidget;
class Scene;
class WhileVisible;

/// Shown by the Interventions tab while the scene is a run of an open encoder–decoder. The
/// component box picks the attention whose heads the ablation and patching maps show; each map
/// is the scheduler's job (the lens kLensJob, recomputed while visible when the run changes;
/// the scan kScanJob and patching kPatchJob on their buttons). The runs are the Translation
/// dock's source and target with its ablations, the ablation box's mode applying to them.
class Seq2SeqInterventionsView : public QWidget {
    Q_OBJECT
  public:
    explicit Seq2SeqInterventionsView(Scene* scene, QWidget* parent = nullptr);
    ~Seq2SeqInterventionsView() override;
    static const QString kLensJob, kScanJob, kPatchJob;

    /// What the view runs: the open encoder–decoder and its dock's sentences; none while the
    /// scene is not its run.
    using SubjectOf = std::function<std::optional<Seq2SeqSubject>()>;
    void setSubject(SubjectOf subject);
    std::optional<Seq2SeqSubject> subject() const;

    QComboBox* componentBox() const { return component_; }
    QComboBox* modeBox() const { return mode_; }
    QTabWidget* pages() const { return pages_; }
    CellMap* lensMap() const { return lensMap_; }
    CellMap* scanMap() const { return scanMap_; }
    CellMap* patchMap() const { return patchMap_; }
    QPushButton* scanButton() const { return scan_; }
    QPushButton* patchButton() const { return patch_; }
    QLineEdit* corruptEdit() const { return corrupt_; }
    QLineEdit* corruptTargetEdit() const { return corruptTarget_; }
    QLineEdit* answerEdit() const { return answer_; }
    QLineEdit* wrongEdit() const { return wrong_; }
    QLabel* status() const { return status_; }
    /// The picked component.
    attn::model::Component part() const;
    const attn::interv::LensTable& lens() const { return lens_; }
    const attn::interv::Seq2SeqAblationScan& scan() const { return scanResult_; }
    const attn::interv::Seq2SeqPatchResult& patchResult() const { return patchResult_; }
    /// The controls every run of the view uses: the dock's, with the ablation box's mode.
    attn::model::Seq2SeqControls controls(const Seq2SeqSubject& s) const;

    /// Starts the lens job now.
    void refreshLens();
    /// Starts the scan or patching job (false, with the reason shown, when refused).
    bool startScan();
    bool startPatch();

  Q_SIGNALS:
    /// A job delivered (or failed: the status line says why).
    void computed();

  private:
    void showMaps();
    /// Clears the ablation and patching maps when the run on show is no longer theirs.
    void dropStaleMaps();
    /// The pages, in order: each has its own status line (a page shows its own job's message).
    enum Page { kLensPage, kScanPage, kPatchPage };

    Scene* scene_;
    SubjectOf subject_;
    QComboBox* component_;
    QComboBox* mode_;
    QTabWidget* pages_;
    CellMap* lensMap_;
    CellMap* scanMap_;
    CellMap* patchMap_;
    QPushButton* scan_;
    QPushButton* patch_;
    QLineEdit* corrupt_;
    QLineEdit* corruptTarget_;
    QLineEdit* answer_;
    QLineEdit* wrong_;
    QLabel* status_;
    PageStatus* said_;  ///< each page's message in status_
    WhileVisible* visible_;
    attn::interv::LensTable lens_;
    QStringList lensNames_;  ///< each lens cell's top token, row-major
    attn::interv::Seq2SeqAblationScan scanResult_;
    attn::interv::Seq2SeqPatchResult patchResult_;
    /// The run (the scene's attention) each map was computed for.
    const void* scanRun_ = nullptr;
    const void* patchRun_ = nullptr;
};
