// AttnScope — the Views tab. GPL-3.0-or-later.
#include "views/views_tab.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QTabWidget>
#include <QVBoxLayout>
#include <utility>

#include "model/scene.hpp"
#include "model/view_state.hpp"
#include "views/lines_view.hpp"
#include "views/neuron_view.hpp"
#include "views/qk_view.hpp"
#include "views/rollout_view.hpp"
#include "views/tokens_view.hpp"

namespace {
QScrollArea* scrolled(QWidget* view) {
    auto* area = new QScrollArea;
    area->setWidget(view);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}
}  // namespace

ViewsTab::ViewsTab(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      tabs_(new QTabWidget),
      lines_(new LinesView),
      tokens_(new TokensView),
      neuron_(new NeuronView),
      rollout_(new RolloutView(scene)),
      qk_(new QkView),
      reduce_(new QComboBox),
      combine_(new QComboBox),
      words_(new QCheckBox(tr("Words, not pieces"))),
      reverse_(new QCheckBox(tr("Reverse"))),
      rule_(new QLabel) {
    setObjectName(QStringLiteral("viewsTab"));
    words_->setObjectName(QStringLiteral("wordsBox"));
    reduce_->addItem(tr("Selected head"), int(attn::HeadReduce::One));
    reduce_->addItem(tr("Mean of heads"), int(attn::HeadReduce::Mean));
    reduce_->addItem(tr("Max of heads"), int(attn::HeadReduce::Max));
    reduce_->setToolTip(
        tr("One head (the selected one: a head view swatch picks another), or "
           "the mean or max over heads. Rollout always averages the heads."));
    combine_->addItem(tr("Mean of selected"), false);
    combine_->addItem(tr("Sum of selected"), true);
    combine_->setToolTip(
        tr("Ctrl- or shift-click tokens to select several queries (or keys: "
           "key labels, reversed text, the weights bars): the views show the "
           "mean or the sum of their weights"));
    words_->setToolTip(QString::fromUtf8(attn::kWordMergeRule));
    reverse_->setToolTip(
        tr("Text view: shade each query by how much it attends to the "
           "hovered or selected key"));
    rule_->setText(tr("words: keys summed, queries averaged"));
    rule_->setVisible(scene_->spec().merge_words);
    words_->setChecked(scene_->spec().merge_words);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 2);
    bar->addWidget(new QLabel(tr("Heads:")));
    bar->addWidget(reduce_);
    bar->addSpacing(8);
    bar->addWidget(combine_);
    bar->addSpacing(8);
    bar->addWidget(words_);
    bar->addSpacing(8);
    bar->addWidget(reverse_);
    bar->addStretch(1);
    // The combos keep their whole texts ("Mean of heads"): the bar asks for its width rather
    // than squeezing them, and the merge rule has a line of its own under the bar.
    for (QComboBox* c : {reduce_, combine_})
        c->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    rule_->setContentsMargins(6, 0, 6, 2);

    tabs_->setDocumentMode(true);
    // Each page with its stable key: the view state keeps the open one (view_keys).
    const auto page = [this](QWidget* w, const char* key, const QString& title) {
        w->setProperty(view_keys::kKeyProperty, QString::fromLatin1(key));
        tabs_->addTab(w, title);
    };
    page(scrolled(lines_), view_keys::kViewLines, tr("Lines"));
    page(scrolled(tokens_), view_keys::kViewText, tr("Text"));
    page(scrolled(neuron_), view_keys::kViewNeuron, tr("Neuron"));
    page(rollout_, view_keys::kViewRollout, tr("Rollout"));
    page(qk_, view_keys::kViewQk, tr("Q–K space"));
    tabs_->setTabToolTip(0,
                         tr("BertViz's head view: lines from queries to keys, opacity = weight"));
    tabs_->setTabToolTip(1, tr("CircuitsVis's coloured tokens"));
    tabs_->setTabToolTip(2, tr("BertViz's neuron view: q, k and q ⊙ k"));
    tabs_->setTabToolTip(3, tr("Attention rollout across layers (Abnar & Zuidema, 2020)"));
    tabs_->setTabToolTip(4, tr("AttentionViz: queries and keys in one PCA plane"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(rule_);
    layout->addWidget(tabs_, 1);

    for (AttentionView* v :
         std::initializer_list<AttentionView*>{lines_, tokens_, neuron_, rollout_, qk_}) {
        connect(v, &AttentionView::selectionRequested, scene_, &Scene::setSelection);
        v->setSelection(scene_->selection());
    }
    selection_ = scene_->selection();
    connect(reduce_, &QComboBox::currentIndexChanged, this, &ViewsTab::applyOptions);
    // The merge is the scene's (every tab, exports, undo): this box and the controls dock's
    // both edit it.
    connect(words_, &QCheckBox::toggled, scene_, &Scene::setMergeWords);
    connect(scene_, &Scene::specChanged, this, [this] {
        const QSignalBlocker block(words_);
        words_->setChecked(scene_->spec().merge_words);
        rule_->setVisible(scene_->spec().merge_words);
    });
    connect(reverse_, &QCheckBox::toggled, this, &ViewsTab::applyOptions);
    connect(combine_, &QComboBox::currentIndexChanged, this, [this] {
        Selection s = scene_->selection();
        s.sum = combine_->currentData().toBool();
        scene_->setSelection(s);
    });
}

void ViewsTab::setResult(SceneResultPtr result) {
    result_ = std::move(result);
    if (isVisible()) {
        for (AttentionView* v : views())
            v->setResult(result_);
    } else if (!stale_) {
        // Behind another tab the views catch up when shown: a temperature drag on the Heads
        // tab rebuilt five views nobody saw (a third of the GUI thread's time at 512 tokens).
        stale_ = true;
        for (AttentionView* v : views())
            v->setResult(nullptr);  // holds no old result (its buffers go back for reuse)
    }
}

void ViewsTab::setSelection(const Selection& selection) {
    selection_ = selection;
    if (isVisible())
        for (AttentionView* v : views())
            v->setSelection(selection_);
    else
        stale_ = true;
    syncCombine();
}

void ViewsTab::catchUp() const {
    if (!stale_) return;
    stale_ = false;
    for (AttentionView* v : views()) {
        v->setResult(result_);
        v->setSelection(selection_);
    }
}

void ViewsTab::showEvent(QShowEvent* event) {
    catchUp();
    QWidget::showEvent(event);
}

std::array<AttentionView*, 5> ViewsTab::views() const {
    return {lines_, tokens_, neuron_, rollout_, qk_};
}

void ViewsTab::syncCombine() {
    const QSignalBlocker block(combine_);
    combine_->setCurrentIndex(scene_->selection().sum ? 1 : 0);
}

void ViewsTab::setOptions(const ViewOptions& options) {
    if (options == options_) return;
    {
        const QSignalBlocker b1(reduce_), b3(reverse_);
        reduce_->setCurrentIndex(reduce_->findData(int(options.reduce)));
        reverse_->setChecked(options.reverse);
    }
    applyOptions();
}

void ViewsTab::applyOptions() {
    options_.reduce = static_cast<attn::HeadReduce>(reduce_->currentData().toInt());
    options_.reverse = reverse_->isChecked();
    for (AttentionView* v :
         std::initializer_list<AttentionView*>{lines_, tokens_, neuron_, rollout_, qk_})
        v->setOptions(options_);
    Q_EMIT optionsChanged(options_);
}
