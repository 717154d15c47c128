// AttnScope — the "alignment" lens. GPL-3.0-or-later.
#include "lenses/alignment_lens.hpp"

#include <QBoxLayout>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <limits>

#include "attn/lenses/alignment.hpp"
#include "attn/util/error.hpp"
#include "model/scene.hpp"
#include "views/qcp.hpp"
#include "views/token_labels.hpp"

namespace {
// A translation of the default sentence: the classic English–French alignment example.
const char* const kFrench =
    "L' accord sur la zone économique européenne a été signé en août 1992 .";
// Pairs of the hard alignment listed in the readout (the circles show every one).
constexpr std::size_t kListedPairs = 12;

/// A read-only box for loaded tokens (rich text of escaped tokens: "</s>" shows as it is).
QLabel* tokenBox(const QString& name) {
    auto* box = new QLabel;
    box->setObjectName(name);
    box->setTextFormat(Qt::RichText);
    box->setWordWrap(true);
    box->setFrameShape(QFrame::StyledPanel);
    box->setMargin(3);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return box;
}

/// Tokens as the app lists them elsewhere ("[CLS] · the · cat"), whole: escaped, and never
/// broken inside a token ("</s>" would otherwise wrap after its slash).
QString tokenList(const std::vector<std::string>& tokens) {
    QStringList out;
    for (const std::string& t : tokens)
        out << QStringLiteral("<nobr>%1</nobr>").arg(tokenText(t).toHtmlEscaped());
    return out.join(QStringLiteral(" · "));
}

/// A token for the rich-text readout: elided, then escaped, so "</s>" is text, not markup.
QString htmlToken(const std::string& token) {
    return elideToken(token, 14).toHtmlEscaped();
}
/// Sets a box's text showing its beginning: QLineEdit::setText leaves the cursor at the end,
/// and a box narrower than its sentence would show only its tail, cut mid-word.
void setShownText(QLineEdit* box, const QString& text) {
    box->setText(text);
    if (!box->hasFocus()) box->setCursorPosition(0);
}

}  // namespace

AlignmentLens::AlignmentLens(Scene* scene, QWidget* parent)
    : LensPanel(scene, QStringLiteral("alignment"), LensInputs::Scene, parent) {
    const attn::SceneSpec spec = scene ? scene->spec() : attn::SceneSpec{};
    sceneText_ = spec.text;
    sceneCross_ = spec.cross_text;
    source_ = new QLineEdit(
        QString::fromStdString(spec.cross_text.empty() ? spec.text : spec.cross_text));
    target_ = new QLineEdit(spec.cross_text.empty() ? QString::fromUtf8(kFrench)
                                                    : QString::fromStdString(spec.text));
    autoTarget_ = spec.cross_text.empty();
    pairTarget();
    for (QLineEdit* box : {source_, target_})
        box->setCursorPosition(0);
    controls()->addRow(tr("source (keys)"), source_);
    controls()->addRow(tr("target (queries)"), target_);
    source_->setObjectName(QStringLiteral("alignmentSource"));
    target_->setObjectName(QStringLiteral("alignmentTarget"));
    connect(source_, &QLineEdit::editingFinished, this, [this] {
        pairTarget();
        requestRefresh();
    });
    connect(target_, &QLineEdit::textEdited, this, [this] { autoTarget_ = false; });
    connect(target_, &QLineEdit::editingFinished, this, &LensPanel::requestRefresh);
    loadedSource_ = tokenBox(QStringLiteral("alignmentLoadedSource"));
    loadedTarget_ = tokenBox(QStringLiteral("alignmentLoadedTarget"));
    loadedScore_ = tokenBox(QStringLiteral("alignmentLoadedScore"));
    loadedScore_->setFrameShape(QFrame::NoFrame);
    controls()->addRow(tr("source (keys)"), loadedSource_);
    controls()->addRow(tr("target (queries)"), loadedTarget_);
    score_ = addCombo(
        "score", tr("score"),
        {tr("additive (Bahdanau)"), tr("general (Luong)"), tr("dot"), tr("scaled dot")}, 0);
    controls()->addRow(tr("score"), loadedScore_);
    QStringList heads{tr("mean of the heads")};
    for (int h = 1; h <= int(spec.heads); ++h)
        heads << tr("head %1").arg(h);
    heads << tr("max of the heads");  // last: sessions keep "head h" at index h
    head_ = addCombo("head", tr("head"), heads, 0);
    // Not a setting (no key, so sessions leave it out): each run's length sets its range.
    step_ = new QSlider(Qt::Horizontal);
    step_->setRange(1, 1);
    auto* stepRow = new QWidget;
    auto* stepLayout = new QHBoxLayout(stepRow);
    stepLayout->setContentsMargins(0, 0, 0, 0);
    auto* stepShown = new QLabel(QStringLiteral("1"));
    stepShown->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("0000")));
    stepShown->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    stepLayout->addWidget(step_, 1);
    stepLayout->addWidget(stepShown);
    controls()->addRow(tr("step"), stepRow);
    connect(step_, &QSlider::valueChanged, this, [this, stepShown](int v) {
        stepShown->setText(QString::number(v));
        requestRefresh();
    });
    step_->setToolTip(
        tr("Target tokens shown: step through the translation token by token and watch each row "
           "appear (the decoder is causal: row i is what the model attended to when it chose "
           "token i + 1)"));
    plot_ = addPlot(0, 0, tr("Alignment: target (rows) over source (columns)"));
    plot_->xAxis->setLabel(tr("source token (key)"));
    plot_->yAxis->setLabel(tr("target token (query)"));
    map_ = LensHeatmap::create(plot_, tr("weight α"), false);
    // Rows not generated yet (the step) are NaN: drawn as nothing, not as the colour of 0.
    QCPColorGradient gradient = map_.map->gradient();
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    map_.map->setGradient(gradient);
    plot_->xAxis->setTickLabelRotation(-50);
    argmax_ = addGraph(plot_, tr("argmax"), QColor(230, 30, 30), Qt::NoPen, 0);
    argmax_->setLineStyle(QCPGraph::lsNone);
    argmax_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::red, 2), Qt::NoBrush, 8));
    showLoaded(Loaded{}, nullptr);
    if (scene) connect(scene, &Scene::specChanged, this, &AlignmentLens::syncWithScene);
    refreshWhenShown();
}

void AlignmentLens::showLoaded(const Loaded& loaded, const attn::lenses::Alignment* a) {
    const bool on = !loaded.file.isEmpty();
    for (QWidget* w : {static_cast<QWidget*>(source_), static_cast<QWidget*>(target_),
                       static_cast<QWidget*>(score_)})
        controls()->setRowVisible(w, !on);
    for (QLabel* w : {loadedSource_, loadedTarget_, loadedScore_})
        controls()->setRowVisible(w, on);
    if (!on) {
        setExplanation(
            tr("<b>Alignment.</b> In a translation model each target word (query) attends over "
               "the source words (keys); the weights form a soft alignment matrix, the picture "
               "that made attention famous (Bahdanau et al. 2015, Luong et al. 2015). The score "
               "function decides what counts as a match. This model is untrained (hashed "
               "embeddings, seeded projections): the matrix shows how sharp or diffuse each "
               "score makes the weights, not a learned translation."),
            tr("additive: v<sub>a</sub><sup>T</sup>tanh(W<sub>a</sub>q + U<sub>a</sub>k)<br>"
               "general: q<sup>T</sup>Wk &nbsp; dot: q·k<br>"
               "α<sub>ij</sub> = softmax<sub>j</sub>(s(q<sub>i</sub>, k<sub>j</sub>)), "
               "c<sub>i</sub> = Σ<sub>j</sub> α<sub>ij</sub> v<sub>j</sub>"));
        return;
    }
    if (a) {
        loadedSource_->setText(tokenList(a->source));
        loadedTarget_->setText(tokenList(a->target));
    }
    loadedScore_->setText(loaded.fromModel ? tr("— (the model's own weights)")
                          : loaded.scores
                              ? tr("the file's raw scores q·k, with the scene's scaling and τ")
                              : tr("— (the file's own weights)"));
    const QString what =
        loaded.fromModel ? tr("the weights the model computed, teacher-forced over the source and "
                              "target of the Translation dock")
        : loaded.scores  ? tr("the model's raw scores q·k from the file, put through the scene's "
                               "scaling, temperature and softmax")
                         : tr("the weights the model computed, as the file holds them");
    const QString shown = loaded.fromModel ? tr("<b>Shown: the cross-attention of the model %1</b>")
                                           : tr("<b>Shown: the cross-attention loaded from %1</b>");
    setExplanation(
        tr("<b>Alignment.</b> In a translation model each target token (query) attends over the "
           "source tokens (keys); the weights form a soft alignment matrix (Bahdanau et al. "
           "2015, Luong et al. 2015). %1 (“%2”, layer %3 of %4, %5 heads): %6. The score "
           "functions and typed sentences of the untrained model do not apply to it. A circle "
           "marks the source token each target token attends to most (the hard alignment); "
           "trained models often park weight on an end token such as &lt;/s&gt; when a head has "
           "nothing to align. Loaded data ▸ Merge sub-words into words aligns whole words.")
            .arg(shown.arg(QFileInfo(loaded.file).fileName().toHtmlEscaped()),
                 loaded.component.toHtmlEscaped())
            .arg(loaded.layer + 1)
            .arg(loaded.layers)
            .arg(loaded.heads)
            .arg(what),
        tr("α<sub>ij</sub>: weight of target token i on source token j (rows sum to 1)<br>"
           "mean of the heads: ᾱ<sub>ij</sub> = (1/H) Σ<sub>h</sub> α<sup>h</sup><sub>ij</sub>"
           "<br>hard alignment: a(i) = argmax<sub>j</sub> α<sub>ij</sub>"));
}

void AlignmentLens::syncWithScene() {
    const Following following(this);  // the scene's sentences, no edit of the lens
    const attn::SceneSpec& spec = scene()->spec();
    if (spec.text != sceneText_ || spec.cross_text != sceneCross_) {
        sceneText_ = spec.text;
        sceneCross_ = spec.cross_text;
        if (spec.cross_text.empty()) {
            setShownText(source_, QString::fromStdString(spec.text));
            pairTarget();
        } else {
            setShownText(source_, QString::fromStdString(spec.cross_text));
            setShownText(target_, QString::fromStdString(spec.text));
            autoTarget_ = false;  // the scene's own target sentence
        }
    }
    const attn::Index loaded = attn::lenses::cross_component(spec);
    const int heads =
        loaded >= 0 ? int(spec.data->components[std::size_t(loaded)].heads) : int(spec.heads);
    if (head_->count() != heads + 2) {
        const QSignalBlocker block(head_);
        const int current = head_->currentIndex();
        const bool max = current == head_->count() - 1;
        while (head_->count() > 1)
            head_->removeItem(head_->count() - 1);
        for (int h = 1; h <= heads; ++h)
            head_->addItem(tr("head %1").arg(h));
        head_->addItem(tr("max of the heads"));
        head_->setCurrentIndex(max ? head_->count() - 1 : current < heads + 1 ? current : 0);
    }
}

void AlignmentLens::pairTarget() {
    // The French target translates the default sentence only: paired with any other source it
    // would draw an alignment between unrelated sentences. Until the user types a target of
    // their own, another source is aligned with itself.
    if (!autoTarget_) return;
    const bool defaultSource = source_->text() == QString::fromUtf8(attn::kDefaultSentence);
    setShownText(target_, defaultSource ? QString::fromUtf8(kFrench) : source_->text());
}

LensPanel::Compute AlignmentLens::prepare() {
    attn::SceneSpec spec = scene() ? scene()->spec() : attn::SceneSpec{};
    const int si = score_->currentIndex();
    const attn::ScoreKind kind = si == 0   ? attn::ScoreKind::Additive
                                 : si == 1 ? attn::ScoreKind::General
                                           : attn::ScoreKind::Dot;
    spec.scale = si == 3 || si == 1;  // "dot" unscaled shows the sharper, saturated matrix
    const std::string source = source_->text().toStdString();
    const std::string target = target_->text().toStdString();
    const attn::Index head = headChoice();
    // A loaded file with cross-attention (a Marian en→de "Cross") is a real alignment: shown as
    // it is, the sentences and score of the untrained model do not apply.
    const attn::Index index = attn::lenses::cross_component(spec);
    Loaded loaded;
    if (index >= 0) {
        const auto& c = spec.data->components[std::size_t(index)];
        loaded = {QString::fromStdString(spec.data->source),
                  QString::fromStdString(c.name),
                  int(std::min(spec.layer, c.layers - 1)),
                  int(c.layers),
                  int(c.heads),
                  c.are_scores};
    }
    return [this, spec, source, target, kind, head, index, loaded](attn::Progress&) -> Draw {
        try {
            Loaded shown = loaded;  // a translation model's run names its folder
            shown.fromModel = !loaded.file.isEmpty() && QFileInfo(loaded.file).isDir();
            auto a = std::make_shared<const attn::lenses::Alignment>(
                index >= 0 ? attn::lenses::loaded_alignment(spec, index, head)
                           : attn::lenses::cross_alignment(spec, source, target, kind, head));
            const attn::Index heads = index >= 0 ? loaded.heads : spec.heads;
            return [this, a, heads, shown] {
                showLoaded(shown, a.get());
                drawAlignment(*a, heads, shown);
            };
        } catch (const attn::Error& e) {
            const QString message = QString::fromUtf8(e.what());
            return [this, message] { setReadout(tr("<i>%1</i>").arg(message.toHtmlEscaped())); };
        }
    };
}

attn::Index AlignmentLens::headChoice() const {
    const int i = head_->currentIndex();
    if (i == head_->count() - 1 && i > 1) return attn::lenses::kMaxOfHeads;
    return i - 1;  // 0: the mean (−1)
}

void AlignmentLens::fitStep(int n) {
    const bool all = step_->value() >= step_->maximum();
    step_->setRange(1, std::max(1, n));
    if (all) step_->setValue(step_->maximum());
}

void AlignmentLens::drawAlignment(const attn::lenses::Alignment& a, attn::Index heads,
                                  const Loaded& loaded) {
    fitStep(int(a.target.size()));
    // Rows past the step are not generated yet: blank (NaN, not a weight of 0), and no circle.
    const std::size_t shownRows = std::min(a.target.size(), std::size_t(step_->value()));
    attn::Matrix stepped = a.weights;
    stepped.bottomRows(stepped.rows() - attn::Index(shownRows))
        .setConstant(std::numeric_limits<float>::quiet_NaN());
    map_.setMatrix(stepped.cast<double>(), 0, a.weights.maxCoeff());
    QSharedPointer<QCPAxisTickerText> xt(new QCPAxisTickerText), yt(new QCPAxisTickerText);
    for (std::size_t j = 0; j < a.source.size(); ++j)
        xt->addTick(double(j), elideToken(a.source[j], 12));
    for (std::size_t i = 0; i < a.target.size(); ++i)
        yt->addTick(double(i), elideToken(a.target[i], 12));
    plot_->xAxis->setTicker(xt);
    plot_->yAxis->setTicker(yt);
    setPlainLabels(plot_->xAxis, a.source);
    setPlainLabels(plot_->yAxis, a.target);
    plot_->xAxis->setSubTicks(false);
    plot_->yAxis->setSubTicks(false);
    QVector<double> ax, ay;
    QStringList pairs;  // one "target → source" a line: token text escaped, never markup
    for (std::size_t i = 0; i < std::min(a.argmax.size(), shownRows); ++i) {
        ax.push_back(double(a.argmax[i]));
        ay.push_back(double(i));
        if (i < kListedPairs)
            pairs << tr("%1 → %2").arg(htmlToken(a.target[i]),
                                       htmlToken(a.source[std::size_t(a.argmax[i])]));
    }
    if (shownRows > kListedPairs)
        pairs << tr("… and %1 more (every one circled)").arg(shownRows - kListedPairs);
    argmax_->setData(ax, ay);
    const bool isLoaded = !loaded.file.isEmpty();
    // Typed sentences only: loaded cross-attention brings its own pair.
    const QString selfNote =
        !isLoaded && source_->text() == target_->text()
            ? tr("<i>The target is the source itself: type its translation into “target” to "
                 "see a cross-lingual alignment.</i><br>")
            : QString();
    const QString source =
        loaded.fromModel ? tr("Cross-attention of the model %1") : tr("Loaded cross-attention: %1");
    QString what = isLoaded ? (source + tr(" — %2, layer %3 of %4<br>"))
                                  .arg(QFileInfo(loaded.file).fileName().toHtmlEscaped(),
                                       loaded.component.toHtmlEscaped())
                                  .arg(loaded.layer + 1)
                                  .arg(loaded.layers)
                            : QString();
    if (shownRows < a.target.size())
        what += tr("<b>Step %1 of %2</b>: the rows of the tokens not generated yet are blank<br>")
                    .arg(shownRows)
                    .arg(a.target.size());
    const QString weights =
        loaded.fromModel ? tr("the model's weights (teacher-forced)")
        : isLoaded       ? (loaded.scores ? tr("the file's raw scores") : tr("the file's weights"))
                         : tr("score: %1").arg(score_->currentText().toHtmlEscaped());
    const attn::Index choice = headChoice();
    const QString headText = choice == -1 ? tr("mean of %1 heads").arg(heads)
                             : choice == attn::lenses::kMaxOfHeads
                                 ? tr("max of %1 heads").arg(heads)
                                 : head_->currentText().toHtmlEscaped();
    setReadout(selfNote + what +
               tr("<b>%1 × %2</b> target × source tokens; %3; %4<br>"
                  "<b>Hard alignment</b> (argmax, ○), target → source:<br>%5")
                   .arg(a.target.size())
                   .arg(a.source.size())
                   .arg(weights, headText, pairs.join(QStringLiteral("<br>"))));
}
