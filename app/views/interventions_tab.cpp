// AttnScope — the Interventions tab. GPL-3.0-or-later.
#include "views/interventions_tab.hpp"

#include <QLabel>
#include <QVBoxLayout>

#include "model/scene.hpp"
#include "views/attribution_view.hpp"
#include "views/interventions_list.hpp"
#include "views/logit_lens_view.hpp"
#include "views/patching_view.hpp"
#include "views/seq2seq_interventions_view.hpp"

InterventionsTab::InterventionsTab(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      reason_(new QLabel),
      pages_(new QTabWidget),
      inEffect_(new InterventionsList(scene)),
      lens_(new LogitLensView(scene)),
      attribution_(new AttributionView(scene)),
      patching_(new PatchingView(scene)),
      seq2seq_(new Seq2SeqInterventionsView(scene)) {
    setObjectName(QStringLiteral("interventionsTab"));
    pages_->setObjectName(QStringLiteral("interventionPages"));
    pages_->setDocumentMode(true);
    // The ablations and knockouts in effect first: what every other page's run includes.
    pages_->addTab(inEffect_, tr("Ablation · knockout · induction"));
    pages_->addTab(lens_, tr("Logit lens"));
    pages_->addTab(attribution_, tr("Attribution"));
    pages_->addTab(patching_, tr("Patching"));
    pages_->setTabToolTip(0, tr("The heads ablated and the edges knocked out in this run, each "
                                "removable; add one, or run the induction test (Olsson et al., "
                                "2022)"));
    pages_->setTabToolTip(1, tr("The residual stream after each layer read through the output "
                                "head (nostalgebraist, 2020)"));
    pages_->setTabToolTip(2, tr("Each head's and MLP's direct share of one token's logit "
                                "(Elhage et al., 2021)"));
    pages_->setTabToolTip(3, tr("Clean activations patched into a corrupted run (Meng et al., "
                                "2022; Wang et al., 2022)"));
    reason_->setObjectName(QStringLiteral("interventionsReason"));
    reason_->setWordWrap(true);
    reason_->setContentsMargins(8, 6, 8, 6);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(reason_);
    column->addWidget(pages_, 1);
    column->addWidget(seq2seq_, 1);
    connect(scene_, &Scene::specChanged, this, &InterventionsTab::sync);
    sync();
}

QString InterventionsTab::reason() const {
    const attn::SceneSpec& spec = scene_->spec();
    if (spec.is_model() || seq2seq_->subject()) return {};
    return spec.is_loaded()
               ? tr("Interventions change a model's run; loaded attention has no model to run. "
                    "Open a model folder (Model ▸ Open Model…) to use them.")
               : tr("Interventions change a model's run; the synthetic scene has no trained "
                    "model. Open a model folder (Model ▸ Open Model…) to use them.");
}

void InterventionsTab::sync() {
    const QString why = reason();
    reason_->setText(why);
    reason_->setVisible(!why.isEmpty());
    pages_->setEnabled(why.isEmpty());
    const bool seq2seq = !scene_->spec().is_model() && seq2seq_->subject();
    pages_->setVisible(!seq2seq);
    seq2seq_->setVisible(seq2seq);
}
