// AttnScope — the ablations and knockouts in effect, and the induction test. GPL-3.0-or-later.
#include "views/interventions_list.hpp"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/models/model.hpp"
#include "attn/scene/model_scene.hpp"
#include "model/induction_test.hpp"
#include "model/interventions_edit.hpp"
#include "model/numbering.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"

const QString InterventionsList::kJob = QStringLiteral("induction test");

namespace {

constexpr int kKindRole = Qt::UserRole;  // 0: an ablated head, 1: a knocked-out edge
constexpr int kIndexRole = Qt::UserRole + 1;
constexpr int kShownHeads = 10;  // the induction test lists the highest scores

QSpinBox* numberBox(const QString& name, const QString& tip) {
    auto* box = new QSpinBox;
    box->setObjectName(name);
    box->setMinimumWidth(box->fontMetrics().horizontalAdvance(QStringLiteral("every query")) + 40);
    box->setRange(1, 1);
    box->setKeyboardTracking(false);  // a number counts once typed, as every field's
    box->setToolTip(tip + QLatin1Char(' ') + numberingNote());
    return box;
}

/// The tokens SPEC's run reads (0 when the text cannot be encoded).
int tokenCount(const attn::SceneSpec& spec) {
    try {
        return int(spec.model->tokenizer->encode(spec.text).size());
    } catch (const std::exception&) {
        return 0;
    }
}

}  // namespace

InterventionsList::InterventionsList(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      list_(new QListWidget),
      empty_(new QLabel),
      remove_(new QPushButton(tr("Remove"))),
      ablateLayer_(numberBox(QStringLiteral("ablateLayer"), tr("The layer of the head."))),
      ablateHead_(numberBox(QStringLiteral("ablateHead"), tr("The head to ablate."))),
      ablate_(new QPushButton(tr("Ablate"))),
      knockLayer_(numberBox(QStringLiteral("knockLayer"), tr("The layer of the head."))),
      knockHead_(numberBox(QStringLiteral("knockHead"), tr("The head whose edge goes."))),
      knockQuery_(numberBox(QStringLiteral("knockQuery"),
                            tr("The query position; “every query” removes the key's column."))),
      knockKey_(numberBox(QStringLiteral("knockKey"), tr("The key position."))),
      knock_(new QPushButton(tr("Knock out"))),
      induction_(new QPushButton(tr("Run induction test"))),
      status_(new QLabel),
      table_(new QTableWidget(0, 3)) {
    setObjectName(QStringLiteral("interventionsList"));
    list_->setObjectName(QStringLiteral("interventionsInEffect"));
    list_->installEventFilter(this);
    list_->setWordWrap(true);
    empty_->setObjectName(QStringLiteral("interventionsEmpty"));
    empty_->setWordWrap(true);
    remove_->setObjectName(QStringLiteral("removeIntervention"));
    remove_->setToolTip(tr("Restores the selected head or edge (Delete; one undo step)"));
    ablate_->setObjectName(QStringLiteral("addAblation"));
    knock_->setObjectName(QStringLiteral("addKnockout"));
    induction_->setObjectName(QStringLiteral("runInduction"));
    status_->setObjectName(QStringLiteral("inductionStatus"));
    status_->setWordWrap(true);
    table_->setObjectName(QStringLiteral("inductionTable"));
    knockQuery_->setSpecialValueText(tr("every query"));
    // "Score": the text above says which; a longer header pushed the column out of the narrow
    // test column at 1280×800 once a row read "1 (ablated)".
    table_->setHorizontalHeaderLabels({tr("Layer"), tr("Head"), tr("Score")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    auto* inEffect = new QGroupBox(tr("In effect on this model run"));
    auto* effectColumn = new QVBoxLayout(inEffect);
    effectColumn->addWidget(empty_);
    effectColumn->addWidget(list_, 1);
    auto* removeRow = new QHBoxLayout;
    removeRow->addStretch(1);
    removeRow->addWidget(remove_);
    effectColumn->addLayout(removeRow);

    auto* ablation = new QGroupBox(tr("Ablate a head (its output z becomes 0)"));
    auto* ablationForm = new QFormLayout(ablation);
    ablationForm->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    ablationForm->addRow(tr("Layer:"), ablateLayer_);
    ablationForm->addRow(tr("Head:"), ablateHead_);
    ablationForm->addRow(QString(), ablate_);

    auto* knockout = new QGroupBox(tr("Knock out an edge (query → key weight becomes 0)"));
    auto* knockoutForm = new QFormLayout(knockout);
    knockoutForm->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    knockoutForm->addRow(tr("Layer:"), knockLayer_);
    knockoutForm->addRow(tr("Head:"), knockHead_);
    knockoutForm->addRow(tr("Query:"), knockQuery_);
    knockoutForm->addRow(tr("Key:"), knockKey_);
    knockoutForm->addRow(QString(), knock_);

    auto* test = new QGroupBox(tr("Induction test"));
    auto* testColumn = new QVBoxLayout(test);
    auto* note =
        new QLabel(tr("Random tokens repeated twice: an induction head attends from a "
                      "token of the second half to the token after its first "
                      "occurrence. The run keeps the ablations and knockouts above."));
    note->setWordWrap(true);
    testColumn->addWidget(note);
    testColumn->addWidget(induction_);
    testColumn->addWidget(status_);
    testColumn->addWidget(table_, 1);

    auto* adds = new QVBoxLayout;
    adds->addWidget(ablation);
    adds->addWidget(knockout);
    adds->addStretch(1);
    auto* row = new QHBoxLayout(this);
    row->addWidget(inEffect, 4);
    row->addLayout(adds, 0);
    row->addWidget(test, 3);

    connect(remove_, &QPushButton::clicked, this, &InterventionsList::removeSelected);
    connect(list_, &QListWidget::currentRowChanged, this,
            [this](int r) { remove_->setEnabled(r >= 0); });
    connect(ablate_, &QPushButton::clicked, this, [this] {
        const int layer = ablateLayer_->value() - 1, head = ablateHead_->value() - 1;
        if (!isAblated(scene_->spec(), layer, head)) toggleAblation(*scene_, layer, head);
    });
    connect(knock_, &QPushButton::clicked, this, [this] {
        const attn::model::Knockout edge{
            {attn::model::kSingleStack, knockLayer_->value() - 1, knockHead_->value() - 1},
            knockQuery_->value() - 1,
            knockKey_->value() - 1};
        if (!isKnockedOut(scene_->spec(), edge)) toggleKnockout(*scene_, edge);
    });
    connect(induction_, &QPushButton::clicked, this, &InterventionsList::runInduction);
    connect(scene_, &Scene::specChanged, this, &InterventionsList::sync);
    sync();
}

InterventionsList::~InterventionsList() {
    Scheduler::instance().cancelAndWait(this);
}

void InterventionsList::sync() {
    const attn::SceneSpec& spec = scene_->spec();
    const bool model = spec.is_model();
    list_->clear();
    int layers = 1, heads = 1, tokens = 1;
    if (model) {
        const attn::model::ModelInfo& info = spec.model->model->info();
        layers = info.layers;
        heads = info.heads;
        tokens = std::max(1, tokenCount(spec));
        const attn::model::Interventions& in = spec.interventions;
        for (std::size_t i = 0; i < in.ablated.size(); ++i) {
            const attn::model::Site& h = in.ablated[i];
            auto* item = new QListWidgetItem(tr("Ablated: %1").arg(headName(h.layer, h.head)));
            item->setToolTip(tr("On the command line: %1").arg(cliSpelling(h)));
            item->setData(kKindRole, 0);
            item->setData(kIndexRole, int(i));
            list_->addItem(item);
        }
        for (std::size_t i = 0; i < in.knockouts.size(); ++i) {
            const attn::model::Knockout& k = in.knockouts[i];
            const QString what = k.query < 0 ? tr("Knocked out: key %1 (every query) in %2")
                                                   .arg(shown(k.key))
                                                   .arg(headName(k.site.layer, k.site.head))
                                             : tr("Knocked out: query %1 → key %2 in %3")
                                                   .arg(shown(k.query))
                                                   .arg(shown(k.key))
                                                   .arg(headName(k.site.layer, k.site.head));
            auto* item = new QListWidgetItem(what);
            item->setToolTip(tr("On the command line: %1").arg(cliSpelling(k)));
            item->setData(kKindRole, 1);
            item->setData(kIndexRole, int(i));
            list_->addItem(item);
        }
    }
    empty_->setText(
        model
            ? tr("Nothing is ablated or knocked out: the run is the model's own. "
                 "Add one with the fields beside this list, or right-click a head or a cell on the "
                 "Heads tab.")
            : QString());
    empty_->setVisible(list_->count() == 0);
    remove_->setEnabled(list_->currentRow() >= 0);
    for (QSpinBox* b : {ablateLayer_, knockLayer_})
        b->setMaximum(layers);
    for (QSpinBox* b : {ablateHead_, knockHead_})
        b->setMaximum(heads);
    knockQuery_->setRange(0, tokens);
    knockKey_->setMaximum(tokens);
    for (QWidget* w : {static_cast<QWidget*>(ablate_), static_cast<QWidget*>(knock_)})
        w->setEnabled(model);
    induction_->setEnabled(model && !Scheduler::instance().isActive(this, kJob));
    if (!Scheduler::instance().isActive(this, kJob)) syncInductionStatus();
}

void InterventionsList::syncInductionStatus() {
    if (census_.entries.empty()) return;
    // A result of another model or other controls says so, never passing for this run's.
    const attn::SceneSpec& spec = scene_->spec();
    const bool same = spec.is_model() && spec.model->model == inductionModel_ &&
                      attn::model::run_controls(spec) == inductionControls_;
    status_->setText(same ? inductionText_
                          : tr("Out of date: the table is of the run before the last change of "
                               "model, controls or interventions. Run the test again."));
}

void InterventionsList::removeSelected() {
    const QListWidgetItem* item = list_->currentItem();
    if (!item) return;
    const attn::model::Interventions in = scene_->spec().interventions;
    const auto i = std::size_t(item->data(kIndexRole).toInt());
    if (item->data(kKindRole).toInt() == 0 && i < in.ablated.size())
        toggleAblation(*scene_, in.ablated[i].layer, in.ablated[i].head);
    else if (item->data(kKindRole).toInt() == 1 && i < in.knockouts.size())
        toggleKnockout(*scene_, in.knockouts[i]);
}

bool InterventionsList::eventFilter(QObject* watched, QEvent* event) {
    if (watched == list_ && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Delete || key == Qt::Key_Backspace) {
            removeSelected();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void InterventionsList::runInduction() {
    const attn::SceneSpec spec = scene_->spec();
    if (!spec.is_model()) return;
    inductionModel_ = spec.model->model;
    inductionControls_ = attn::model::run_controls(spec);
    induction_->setEnabled(false);
    status_->setText(tr("Running the induction test: %1 random tokens, then the same again…")
                         .arg(inductionHalf(spec)));
    Scheduler::instance().run(
        this, kJob, [spec](attn::Progress&) { return inductionCensus(spec); },
        [this](attn::Census census) { showInduction(std::move(census)); },
        [this](const QString& message) {
            induction_->setEnabled(scene_->spec().is_model());
            status_->setText(tr("The induction test failed: %1").arg(message));
            Q_EMIT inductionFinished();
        });
}

void InterventionsList::showInduction(attn::Census census) {
    census_ = std::move(census);
    std::vector<attn::HeadCensus> best = census_.entries;
    const auto score = [](const attn::HeadCensus& e) {
        return e.score(attn::HeadPattern::Induction);
    };
    std::stable_sort(best.begin(), best.end(),
                     [&](const auto& a, const auto& b) { return score(a) > score(b); });
    best.resize(std::min<std::size_t>(best.size(), kShownHeads));
    table_->setRowCount(int(best.size()));
    // The test ran with the interventions in effect: an ablated head's score is what ablation
    // left of it, so the row says so rather than passing for the head's own.
    const std::vector<attn::model::Site>& ablated = inductionControls_.interventions.ablated;
    int ablatedShown = 0;
    for (int r = 0; r < int(best.size()); ++r) {
        const attn::HeadCensus& e = best[std::size_t(r)];
        const bool off = std::binary_search(
            ablated.begin(), ablated.end(),
            attn::model::Site{attn::model::kSingleStack, int(e.layer), int(e.head)});
        ablatedShown += off ? 1 : 0;
        auto* head = new QTableWidgetItem(off ? tr("%1 (ablated)").arg(shown(e.head))
                                              : QString::number(shown(e.head)));
        if (off)
            head->setToolTip(
                tr("Ablated when the test ran: its pattern still scores, its output is removed"));
        table_->setItem(r, 0, new QTableWidgetItem(QString::number(shown(e.layer))));
        table_->setItem(r, 1, head);
        table_->setItem(r, 2, new QTableWidgetItem(QString::number(score(e), 'f', 3)));
        for (int c = 0; c < 3 && off; ++c)
            table_->item(r, c)->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
    }
    const attn::SceneSpec& spec = scene_->spec();
    inductionText_ =
        tr("The %1 highest of %2 heads (score: the mean weight on the token after the earlier "
           "occurrence, 0 to 1; uniform attention gives about 1/n). “attnscope census --model "
           "DIR --induction” writes every head's.")
            .arg(best.size())
            .arg(census_.entries.size());
    if (!ablated.empty())
        inductionText_ +=
            QLatin1Char(' ') + (ablated.size() == 1
                                    ? (ablatedShown ? tr("Run with 1 head ablated, marked below.")
                                                    : tr("Run with 1 head ablated, not "
                                                         "among these."))
                                    : tr("Run with %1 heads ablated, %2 of them "
                                         "marked below.")
                                          .arg(ablated.size())
                                          .arg(ablatedShown));
    induction_->setEnabled(spec.is_model());
    syncInductionStatus();  // says so when the scene changed while the test ran
    Q_EMIT inductionFinished();
}
