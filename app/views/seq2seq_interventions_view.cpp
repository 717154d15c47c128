// AttnScope — the Interventions tab on an encoder–decoder's run. GPL-3.0-or-later.
#include "views/seq2seq_interventions_view.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>
#include <new>

#include "attn/interventions/seq2seq_lens.hpp"
#include "attn/util/error.hpp"
#include "model/error_text.hpp"
#include "model/numbering.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "model/while_visible.hpp"
#include "views/cell_map.hpp"
#include "views/page_status.hpp"
#include "views/token_pick.hpp"

const QString Seq2SeqInterventionsView::kLensJob = QStringLiteral("seq2seq logit lens");
const QString Seq2SeqInterventionsView::kScanJob = QStringLiteral("seq2seq ablation scan");
const QString Seq2SeqInterventionsView::kPatchJob = QStringLiteral("seq2seq patching");

namespace {

using attn::model::Component;

struct Seq2SeqLensDelivery {
    attn::interv::LensTable table;
    QStringList tokens, names;
    QString error;
};

/// BODY's value, or ERROR set to its exception's message for the status line (a cancellation
/// goes through: nothing is delivered).
template <class T, class Body>
T guarded(Body body) {
    T d;
    try {
        body(d);
    } catch (const attn::Cancelled&) {
        throw;
    } catch (const std::bad_alloc&) {
        d.error = QObject::tr("Not enough memory for these runs: use shorter sentences.");
    } catch (const std::exception& e) {
        d.error = errorText(e, QObject::tr("the model"));
    }
    return d;
}

/// A page of the view: a line of controls (or none), then MAP.
QWidget* page(QWidget* controls, CellMap* map) {
    auto* w = new QWidget;
    auto* column = new QVBoxLayout(w);
    column->setContentsMargins(6, 4, 6, 4);
    if (controls) column->addWidget(controls);
    column->addWidget(map, 1);
    return w;
}

/// The attention the scene shows (a run of the encoder–decoder), or null.
const void* shownRun(const Scene& scene) {
    const attn::SceneSpec& spec = scene.spec();
    return spec.is_loaded() ? static_cast<const void*>(spec.data.get()) : nullptr;
}

}  // namespace

Seq2SeqInterventionsView::Seq2SeqInterventionsView(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      component_(new QComboBox),
      mode_(new QComboBox),
      pages_(new QTabWidget),
      lensMap_(new CellMap),
      scanMap_(new CellMap),
      patchMap_(new CellMap),
      scan_(new QPushButton(tr("Scan every head"))),
      patch_(new QPushButton(tr("Patch every head"))),
      corrupt_(new QLineEdit),
      corruptTarget_(new QLineEdit),
      answer_(new QLineEdit),
      wrong_(new QLineEdit),
      status_(new QLabel) {
    setObjectName(QStringLiteral("seq2seqInterventions"));
    component_->setObjectName(QStringLiteral("seq2seqComponent"));
    component_->addItems({tr("Encoder"), tr("Decoder"), tr("Cross")});
    component_->setCurrentIndex(2);
    component_->setToolTip(
        tr("The attention whose heads the ablation and patching maps show: the encoder's or the "
           "decoder's self-attention, or the cross-attention"));
    mode_->setObjectName(QStringLiteral("seq2seqAblationMode"));
    mode_->addItems({tr("Zero"), tr("Mean")});
    mode_->setToolTip(
        tr("How an ablated head's output is replaced: by zero, or by its mean over the run's "
           "positions (the Translation dock's heads, and each head of the scan)"));
    pages_->setObjectName(QStringLiteral("seq2seqInterventionPages"));
    pages_->setDocumentMode(true);
    lensMap_->setObjectName(QStringLiteral("seq2seqLensMap"));
    lensMap_->setAxisNames(tr("decoder stream"), tr("target position (input)"));
    lensMap_->setTitle(
        tr("Top token of the decoder's residual stream at each target position, "
           "through the final norm and the output head (colour: its "
           "probability)"));
    lensMap_->setLimit(1.0);
    scanMap_->setObjectName(QStringLiteral("seq2seqScanMap"));
    patchMap_->setObjectName(QStringLiteral("seq2seqPatchMap"));
    patchMap_->setRangeFloor(1.0);
    patchMap_->setKeyMarks({-1.0, 0.0, 1.0});
    for (CellMap* m : {scanMap_, patchMap_}) {
        m->setScale(CellMap::Scale::Diverging);
        m->setAxisNames(tr("layer"), tr("head"));
        m->setShowValues(true);
    }
    scan_->setObjectName(QStringLiteral("seq2seqScan"));
    patch_->setObjectName(QStringLiteral("seq2seqPatch"));
    corrupt_->setObjectName(QStringLiteral("seq2seqCorrupt"));
    corruptTarget_->setObjectName(QStringLiteral("seq2seqCorruptTarget"));
    answer_->setObjectName(QStringLiteral("seq2seqAnswer"));
    wrong_->setObjectName(QStringLiteral("seq2seqWrong"));
    corrupt_->setPlaceholderText(tr("the source, changed (same token count); empty: the same"));
    corruptTarget_->setPlaceholderText(tr("the target, changed (same token count); empty: same"));
    for (QLineEdit* token : {answer_, wrong_})
        token->setPlaceholderText(tr("token id or text"));
    auto* scanBar = new QWidget;
    auto* scanRow = new QHBoxLayout(scanBar);
    scanRow->setContentsMargins(0, 0, 0, 0);
    scanRow->addWidget(scan_);
    scanRow->addStretch(1);
    auto* patchForm = new QWidget;
    auto* form = new QFormLayout(patchForm);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Corrupted source:"), corrupt_);
    form->addRow(tr("Corrupted target:"), corruptTarget_);
    auto* answers = new QHBoxLayout;
    answers->addWidget(answer_);
    answers->addWidget(new QLabel(tr("against")));
    answers->addWidget(wrong_);
    answers->addWidget(patch_);
    form->addRow(tr("Answer:"), answers);
    pages_->addTab(page(nullptr, lensMap_), tr("Logit lens (decoder)"));
    pages_->addTab(page(scanBar, scanMap_), tr("Ablation map"));
    pages_->addTab(page(patchForm, patchMap_), tr("Patching"));

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Component:")));
    top->addWidget(component_);
    top->addSpacing(12);
    top->addWidget(new QLabel(tr("Ablation:")));
    top->addWidget(mode_);
    top->addStretch(1);
    status_->setObjectName(QStringLiteral("seq2seqInterventionsStatus"));
    said_ = new PageStatus(status_, pages_);  // the lens's message is not the patching's
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 4, 6, 4);
    column->addLayout(top);
    column->addWidget(status_);
    column->addWidget(pages_, 1);

    connect(component_, &QComboBox::currentIndexChanged, this, &Seq2SeqInterventionsView::showMaps);
    showMaps();
    connect(scan_, &QPushButton::clicked, this, &Seq2SeqInterventionsView::startScan);
    connect(patch_, &QPushButton::clicked, this, &Seq2SeqInterventionsView::startPatch);
    visible_ = new WhileVisible(this, [this] { refreshLens(); });
    connect(scene_, &Scene::specChanged, visible_, &WhileVisible::stale);
    connect(scene_, &Scene::specChanged, this, &Seq2SeqInterventionsView::dropStaleMaps);
    connect(mode_, &QComboBox::currentIndexChanged, visible_, &WhileVisible::stale);
}

Seq2SeqInterventionsView::~Seq2SeqInterventionsView() {
    Scheduler::instance().cancelAndWait(this);
}

void Seq2SeqInterventionsView::setSubject(SubjectOf subject) {
    subject_ = std::move(subject);
    visible_->stale();
}

std::optional<Seq2SeqSubject> Seq2SeqInterventionsView::subject() const {
    return subject_ ? subject_() : std::nullopt;
}

Component Seq2SeqInterventionsView::part() const {
    return component_->currentIndex() == 0   ? Component::Encoder
           : component_->currentIndex() == 1 ? Component::Decoder
                                             : Component::Cross;
}

attn::model::Seq2SeqControls Seq2SeqInterventionsView::controls(const Seq2SeqSubject& s) const {
    attn::model::Seq2SeqControls c = s.input.options.controls;
    c.ablation = mode_->currentIndex() == 1 ? attn::model::AblationMode::Mean
                                            : attn::model::AblationMode::Zero;
    return c;
}

void Seq2SeqInterventionsView::refreshLens() {
    visible_->clear();
    const std::optional<Seq2SeqSubject> s = subject();
    if (!s) {
        Scheduler::instance().cancel(this, kLensJob);
        return;
    }
    said_->set(kLensPage, tr("Computing the logit lens…"));
    Scheduler::instance().run(
        this, kLensJob,
        [s = *s, controls = controls(*s)](attn::Progress&) {
            return guarded<Seq2SeqLensDelivery>([&](Seq2SeqLensDelivery& d) {
                const attn::model::Seq2SeqFolder& f = *s.folder;
                const std::vector<std::int32_t> source = f.source->encode(s.input.source),
                                                target = seq2seqDecoderIds(f, s.input);
                d.table = attn::interv::seq2seq_lens_table(
                    attn::interv::seq2seq_lens_logits(*f.model, source, target, controls));
                for (const std::string& t : f.target->display_tokens(target))
                    d.tokens << visibleToken(QString::fromStdString(t));
                for (const attn::interv::LensCell& c : d.table.cells)
                    d.names << visibleToken(QString::fromStdString(f.target->token_text(c.ids[0])));
            });
        },
        [this](Seq2SeqLensDelivery d) {
            if (!d.error.isEmpty()) {
                // The run on show has no lens: the previous run's map would pass for its.
                lens_ = {};
                lensMap_->clear();
                said_->set(kLensPage, d.error, true);
                Q_EMIT computed();
                return;
            }
            lens_ = std::move(d.table);
            lensNames_ = std::move(d.names);
            attn::Matrix p(lens_.layers, lens_.positions);
            for (attn::Index r = 0; r < lens_.layers; ++r)
                for (attn::Index c = 0; c < lens_.positions; ++c)
                    p(r, c) = lens_.at(r, c).probabilities[0];
            lensMap_->setData(p, streamRowLabels(int(lens_.layers) - 1), d.tokens, lensNames_);
            said_->set(
                kLensPage,
                tr("Logit lens: each cell the top token and its probability, %1 target positions.")
                    .arg(lens_.positions));
            Q_EMIT computed();
        });
}

bool Seq2SeqInterventionsView::startScan() {
    const std::optional<Seq2SeqSubject> s = subject();
    if (!s) return false;
    said_->set(kScanPage, tr("Ablating each head in turn…"));
    scan_->setEnabled(false);
    struct Delivery {
        attn::interv::Seq2SeqAblationScan scan;
        QString error;
    };
    Scheduler::instance().run(
        this, kScanJob,
        [s = *s, controls = controls(*s)](attn::Progress& progress) {
            return guarded<Delivery>([&](Delivery& d) {
                const attn::model::Seq2SeqFolder& f = *s.folder;
                d.scan = attn::interv::seq2seq_ablation_scan(
                    *f.model, f.source->encode(s.input.source), seq2seqDecoderIds(f, s.input),
                    controls, &progress);
            });
        },
        [this](Delivery d) {
            scan_->setEnabled(true);
            if (!d.error.isEmpty()) {
                said_->set(kScanPage, d.error, true);
            } else {
                scanResult_ = std::move(d.scan);
                scanRun_ = shownRun(*scene_);
                showMaps();
                said_->set(kScanPage,
                           tr("Ablation map: the target's log-probability is %1 without it.")
                               .arg(scanResult_.target_logprob, 0, 'f', 3));
            }
            Q_EMIT computed();
        });
    return true;
}

bool Seq2SeqInterventionsView::startPatch() {
    const std::optional<Seq2SeqSubject> s = subject();
    if (!s) return false;
    const attn::model::Seq2SeqFolder& f = *s->folder;
    QString error;
    const int vocab = f.model->info().vocab;
    const std::optional<std::int32_t> answer = pickToken(*f.target, vocab, answer_->text(), &error);
    const std::optional<std::int32_t> wrong =
        answer ? pickToken(*f.target, vocab, wrong_->text(), &error) : std::nullopt;
    if (!answer || !wrong) {
        said_->set(kPatchPage, tr("Patching: %1").arg(error), true);
        return false;
    }
    if (corrupt_->text().isEmpty() && corruptTarget_->text().isEmpty()) {
        said_->set(kPatchPage, tr("Patching: type a corrupted source or a corrupted target."),
                   true);
        return false;
    }
    Seq2SeqInput corrupt = s->input;
    if (!corrupt_->text().isEmpty()) corrupt.source = corrupt_->text().toStdString();
    if (!corruptTarget_->text().isEmpty()) {
        corrupt.target = corruptTarget_->text().toStdString();
        corrupt.targetIds.clear();
    }
    said_->set(kPatchPage, tr("Patching each head from the clean run into the corrupted one…"));
    patch_->setEnabled(false);
    struct Delivery {
        attn::interv::Seq2SeqPatchResult result;
        QString error;
    };
    Scheduler::instance().run(
        this, kPatchJob,
        [s = *s, corrupt, controls = controls(*s), a = *answer,
         w = *wrong](attn::Progress& progress) {
            return guarded<Delivery>([&](Delivery& d) {
                const attn::model::Seq2SeqFolder& f = *s.folder;
                attn::interv::Seq2SeqPatchSpec spec;
                spec.clean_source = f.source->encode(s.input.source);
                spec.corrupt_source = f.source->encode(corrupt.source);
                spec.clean_target = seq2seqDecoderIds(f, s.input);
                spec.corrupt_target = seq2seqDecoderIds(f, corrupt);
                spec.answer = a;
                spec.wrong = w;
                spec.controls = controls;
                d.result = attn::interv::seq2seq_patch(*f.model, spec, &progress);
            });
        },
        [this](Delivery d) {
            patch_->setEnabled(true);
            if (!d.error.isEmpty()) {
                said_->set(kPatchPage, d.error, true);
            } else {
                patchResult_ = std::move(d.result);
                patchRun_ = shownRun(*scene_);
                showMaps();
                said_->set(kPatchPage,
                           tr("Patching: answer − wrong is %1 clean, %2 corrupted.%3")
                               .arg(patchResult_.clean_diff, 0, 'f', 3)
                               .arg(patchResult_.corrupt_diff, 0, 'f', 3)
                               .arg(patchResult_.unstable() ? tr(" Too close for stable fractions.")
                                                            : QString()));
            }
            Q_EMIT computed();
        });
    return true;
}

void Seq2SeqInterventionsView::showMaps() {
    const Component p = part();
    const QString name = component_->currentText();
    const auto labels = [](attn::Index n, bool layers) {
        QStringList out;
        for (attn::Index i = 0; i < n; ++i)
            out << (layers ? tr("L%1") : tr("H%1")).arg(shown(int(i)));
        return out;
    };
    const attn::MatrixD& scan = p == Component::Encoder   ? scanResult_.encoder
                                : p == Component::Decoder ? scanResult_.decoder
                                                          : scanResult_.cross;
    // An empty map says how to fill it, never a blank page.
    if (scan.size() > 0)
        scanMap_->setData(scan.cast<float>(), labels(scan.rows(), true),
                          labels(scan.cols(), false));
    scanMap_->setTitle((scan.size() > 0 ? tr("%1: change of the target's log-probability when "
                                             "each head is ablated alone")
                                        : tr("Scan every head: each head of %1 ablated alone, "
                                             "and the change of the target's log-probability"))
                           .arg(name));
    const attn::Matrix& patch = patchResult_.of(p);
    if (patch.size() > 0)
        patchMap_->setData(patch, labels(patch.rows(), true), labels(patch.cols(), false));
    patchMap_->setTitle((patch.size() > 0 ? tr("%1: fraction of the clean logit difference "
                                               "restored by each head's clean output")
                                          : tr("Type a corrupted source or target, the answer "
                                               "and a wrong token, then Patch every head: the "
                                               "fraction of the clean logit difference each "
                                               "head of %1 restores"))
                            .arg(name));
}

void Seq2SeqInterventionsView::dropStaleMaps() {
    const void* run = shownRun(*scene_);
    if (scanRun_ && scanRun_ != run) {
        scanResult_ = {};
        scanMap_->clear();
        scanRun_ = nullptr;
        said_->set(kScanPage, {});  // its numbers were the map's
    }
    if (patchRun_ && patchRun_ != run) {
        patchResult_ = {};
        patchMap_->clear();
        patchRun_ = nullptr;
        said_->set(kPatchPage, {});
    }
    showMaps();  // a map dropped says again how to fill it
}
