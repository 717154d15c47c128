// AttnScope — the Interventions tab's first page: the ablations and knockouts in effect, each
// removable, fields that add one, and the induction test. GPL-3.0-or-later.
#pragma once

#include <QWidget>

#include "attn/analysis/census.hpp"
#include "attn/models/model.hpp"

class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;
class Scene;

/// Lists the heads SCENE's model run ablates and the edges it knocks out (one row each, with
/// the command line's spelling as its tooltip); Remove (or Delete) restores the selected one
/// and Ablate / Knock out add one from the fields, each one undo step as the Heads tab's menu.
/// Run induction test scores every head on random tokens repeated twice (a scheduler job), as
/// `attnscope census --model DIR --induction` does, and lists the highest. Layers, heads,
/// queries and keys count from 1, as every label of the window.
class InterventionsList : public QWidget {
    Q_OBJECT
  public:
    explicit InterventionsList(Scene* scene, QWidget* parent = nullptr);
    ~InterventionsList() override;
    static const QString kJob;

    QListWidget* list() const { return list_; }
    QPushButton* removeButton() const { return remove_; }
    QSpinBox* ablateLayer() const { return ablateLayer_; }
    QSpinBox* ablateHead() const { return ablateHead_; }
    QPushButton* ablateButton() const { return ablate_; }
    QSpinBox* knockLayer() const { return knockLayer_; }
    QSpinBox* knockHead() const { return knockHead_; }
    /// 0 ("every query") knocks out the key's whole column.
    QSpinBox* knockQuery() const { return knockQuery_; }
    QSpinBox* knockKey() const { return knockKey_; }
    QPushButton* knockButton() const { return knock_; }
    QPushButton* inductionButton() const { return induction_; }
    QTableWidget* inductionTable() const { return table_; }
    QLabel* inductionStatus() const { return status_; }
    /// The last induction test's census (empty before the first).
    const attn::Census& inductionResult() const { return census_; }

  Q_SIGNALS:
    /// The induction test's result is on show (or it failed: the status says why).
    void inductionFinished();

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void sync();
    void removeSelected();
    void runInduction();
    /// The induction status: the result's, or that it is out of date for the scene's run.
    void syncInductionStatus();
    void showInduction(attn::Census census);

    Scene* scene_;
    QListWidget* list_;
    QLabel* empty_;
    QPushButton* remove_;
    QSpinBox* ablateLayer_;
    QSpinBox* ablateHead_;
    QPushButton* ablate_;
    QSpinBox* knockLayer_;
    QSpinBox* knockHead_;
    QSpinBox* knockQuery_;
    QSpinBox* knockKey_;
    QPushButton* knock_;
    QPushButton* induction_;
    QLabel* status_;
    QTableWidget* table_;
    attn::Census census_;
    /// The model and controls the induction result on show was run with.
    std::shared_ptr<const attn::model::Model> inductionModel_;
    attn::model::RunControls inductionControls_;
    QString inductionText_;  ///< the status of the result on show
};
