// AttnScope — the "Loaded data" dock: component, layer, head and d_k of loaded attention.
// GPL-3.0-or-later.
#include "io/data_dock.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>

#include "attn/io/json/attention_json.hpp"
#include "io/model_dock.hpp"
#include "model/numbering.hpp"
#include "model/scene.hpp"
#include "model/undo_command.hpp"
#include "tab_docks.hpp"
#include "views/token_labels.hpp"

namespace fileio {

DataDock::DataDock(Scene* scene, QWidget* parent)
    : QDockWidget(tr("Loaded data"), parent),
      scene_(scene),
      component_(new QComboBox),
      layer_(new QSpinBox),
      head_(new QSpinBox),
      dk_(new QDoubleSpinBox),
      note_(new QLabel),
      mergeWords_(new QCheckBox(tr("Merge sub-&words into words"))) {
    setObjectName(QStringLiteral("dataDock"));
    // Typed numbers apply when done: "12" must not show layer 1 on the way.
    for (QAbstractSpinBox* box :
         {static_cast<QAbstractSpinBox*>(layer_), static_cast<QAbstractSpinBox*>(head_),
          static_cast<QAbstractSpinBox*>(dk_)})
        box->setKeyboardTracking(false);
    component_->setToolTip(
        tr("Which block of the file is shown (e.g. Encoder, Decoder, Cross; "
           "scores or the model's attention)"));
    layer_->setToolTip(tr("The layer shown in the heatmap grid (the Model tab shows them all)") +
                       QStringLiteral("\n") + numberingNote());
    // Beside the layer, so both selectors are at hand whichever tab is on show.
    head_->setToolTip(
        tr("The selected head: the weights bar, the math panel and the lenses follow it") +
        QStringLiteral("\n") + numberingNote());
    dk_->setRange(1, 65536);
    dk_->setDecimals(0);
    dk_->setToolTip(tr("d_k used to scale the loaded raw scores by 1/√d_k"));
    note_->setWordWrap(true);
    // Room for the two lines the note wraps to in a narrow dock: a word-wrapped label's
    // height is not part of the dock's minimum, so a crowded dock column cut it off.
    note_->setMinimumHeight(note_->fontMetrics().lineSpacing() * 2 + 4);
    auto* body = new QWidget;
    auto* form = new QFormLayout(body);
    form->addRow(tr("&Component:"), component_);
    form->addRow(tr("&Layer:"), layer_);
    form->addRow(tr("&Head:"), head_);
    form->addRow(tr("&d_k:"), dk_);
    // Here, where real tokenisers' pieces arrive; part of the scene (undoable, saved), since it
    // changes every number shown. The Views tab's "Words, not pieces" edits the same flag.
    mergeWords_->setToolTip(QString::fromUtf8(attn::kWordMergeRule));
    form->addRow(mergeWords_);
    form->addRow(note_);
    setWidget(body);

    connect(component_, &QComboBox::currentIndexChanged, this, &DataDock::onComponent);
    connect(layer_, &QSpinBox::valueChanged, this, &DataDock::onLayer);
    connect(head_, &QSpinBox::valueChanged, this, &DataDock::onHead);
    connect(dk_, &QDoubleSpinBox::valueChanged, this, &DataDock::onDk);
    connect(mergeWords_, &QCheckBox::toggled, scene_, &Scene::setMergeWords);
    connect(scene_, &Scene::selectionChanged, this, &DataDock::syncHead);
    connect(scene_, &Scene::specChanged, this, &DataDock::sync);
    sync();
}

void DataDock::onComponent(int index) {
    if (index < 0 || index == scene_->spec().component) return;
    attn::SceneSpec spec = scene_->spec();
    spec.component = index;
    spec.layer = 0;
    scene_->showPart(spec, tr("Show %1").arg(component_->itemText(index)));
}

void DataDock::onLayer(int layer) {
    // Displayed from 1, like every label; stored from 0, like the file.
    if (layer - 1 == scene_->spec().layer) return;
    attn::SceneSpec spec = scene_->spec();
    spec.layer = layer - 1;
    scene_->showPart(spec, tr("Show layer %1").arg(layer));
}

void DataDock::onHead(int head) {
    // Displayed from 1; the selection keeps its query and key (the scene clamps them).
    Selection s = scene_->selection();
    if (s.head == head - 1) return;
    s.head = head - 1;
    scene_->setSelection(s);
}

void DataDock::syncHead() {
    const QSignalBlocker block(head_);
    head_->setValue(scene_->selection().head + 1);
}

void DataDock::onDk(double dk) {
    attn::SceneSpec spec = scene_->spec();
    if (spec.data_dk && *spec.data_dk == float(dk)) return;
    spec.data_dk = float(dk);
    scene_->setSpec(spec, tr("Change d_k"), kDataDkControl);
}

void DataDock::sync() {
    const attn::SceneSpec& spec = scene_->spec();
    const bool hasData = spec.is_loaded() && !spec.data->components.empty();
    TabDocks::setAvailable(this, hasData);
    {
        const QSignalBlocker block(mergeWords_);
        mergeWords_->setChecked(spec.merge_words);
    }
    if (hasData) {
        const QSignalBlocker b1(component_), b2(layer_), b3(dk_);
        component_->clear();
        for (std::size_t i = 0; i < spec.data->components.size(); ++i) {
            const auto& c = spec.data->components[i];
            component_->addItem(componentTitle(c.name, int(i)));
        }
        component_->setCurrentIndex(int(spec.component));
        const auto& c = spec.data->components.at(std::size_t(spec.component));
        layer_->setRange(1, int(std::max<attn::Index>(1, c.layers)));
        layer_->setValue(int(spec.layer) + 1);
        layer_->setEnabled(c.layers > 1);
        {
            const QSignalBlocker b4(head_);
            head_->setRange(1, int(std::max<attn::Index>(1, c.heads)));
            head_->setEnabled(c.heads > 1);
        }
        syncHead();
        dk_->setValue(spec.data_dk ? *spec.data_dk : c.d_k);
        dk_->setEnabled(c.are_scores);
        const QString file = modelName(QString::fromStdString(spec.data->source));
        QString note = c.are_scores
                           ? tr("%1: raw scores; scaling, mask and temperature apply.").arg(file)
                           : tr("%1: post-softmax weights, shown as they are.").arg(file);
        // Sentence-pair blocks: say why Σ α is below 1 before anyone thinks the file is broken.
        if (const std::string why = attn::io::component_row_note(c.name); !why.empty())
            note += tr(" Rows do not sum to 1: %1.").arg(QString::fromStdString(why));
        note_->setText(note);
        // A word-wrapped label's height is not part of the dock's minimum: reserve its lines.
        note_->setMinimumHeight(note_->heightForWidth(std::max(note_->width(), 220)));
    }
}

}  // namespace fileio
