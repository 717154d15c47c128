// AttnScope — the direct logit attribution view. GPL-3.0-or-later.
#include "views/attribution_view.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

#include "attn/scene/model_scene.hpp"
#include "model/layer_cache.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "model/while_visible.hpp"
#include "views/cell_map.hpp"
#include "views/screen_only.hpp"
#include "views/scroll_frame.hpp"
#include "views/shown_text.hpp"
#include "views/token_pick.hpp"

const QString AttributionView::kJob = QStringLiteral("attribution");

namespace {
struct AttributionDelivery {
    attn::interv::Attribution attribution;
    std::vector<attn::NextToken> top;
    QString name, text;  // the token as the page names it, and its plain text
    std::vector<std::int32_t> ids;
    QStringList tokens;
};
}  // namespace

AttributionView::AttributionView(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      map_(new CellMap),
      bars_(new BarList),
      barsFrame_(new ScrollFrame(bars_)),
      top_(new QListWidget),
      edit_(new QLineEdit),
      sum_(new QLabel),
      status_(new QLabel) {
    setObjectName(QStringLiteral("attributionView"));
    map_->setObjectName(QStringLiteral("attributionMap"));
    map_->setScale(CellMap::Scale::Diverging);
    map_->setShowValues(true);
    map_->setAxisNames(tr("layer"), tr("head"));
    map_->setTip([this](int r, int c) {
        if (r >= result_.heads.rows() || c >= result_.heads.cols()) return QString();
        return tr("Layer %1, head %2: %3 of the logit")
            .arg(r + 1)
            .arg(c + 1)
            .arg(double(result_.heads(r, c)), 0, 'g', 4);
    });
    top_->setObjectName(QStringLiteral("attributionTop"));
    top_->setToolTip(tr("The 10 likeliest next tokens: click one to attribute its logit"));
    top_->setMaximumWidth(240);
    edit_->setPlaceholderText(tr("or type a token or its id, Enter"));
    edit_->setObjectName(QStringLiteral("attributionToken"));
    sum_->setObjectName(QStringLiteral("attributionSum"));
    sum_->setWordWrap(true);
    sum_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setWordWrap(true);
    // The figure (what exports draw): the map, the bars and the sum, without the picker.
    auto* figure = new QWidget;
    figure->setObjectName(QStringLiteral("attributionFigure"));
    figure->setProperty(kFigureProperty, true);
    auto* parts = new QGridLayout(figure);
    parts->setContentsMargins(0, 0, 0, 0);
    parts->addWidget(map_, 0, 0);
    // The bars scroll when their labels need more height than the page has (192 dpi).
    barsFrame_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    parts->addWidget(barsFrame_, 0, 1);
    parts->addWidget(sum_, 1, 0, 1, 2);
    parts->setColumnStretch(0, 2);
    parts->setColumnStretch(1, 1);
    auto* picker = new QVBoxLayout;
    picker->addWidget(new QLabel(tr("Token:")));
    picker->addWidget(top_, 1);
    picker->addWidget(edit_);
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(6, 4, 6, 4);
    grid->addWidget(status_, 0, 0, 1, 2);
    grid->addWidget(figure, 1, 0);
    grid->addLayout(picker, 1, 1);
    grid->setColumnStretch(0, 4);
    connect(top_, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { setToken(item->data(Qt::UserRole).toInt()); });
    connect(edit_, &QLineEdit::returnPressed, this, &AttributionView::onTyped);
    visible_ = new WhileVisible(this, [this] { refresh(); });
    connect(scene_, &Scene::specChanged, visible_, &WhileVisible::stale);
}

AttributionView::~AttributionView() {
    Scheduler::instance().cancelAndWait(this);
}

void AttributionView::onTyped() {
    const attn::SceneSpec& spec = scene_->spec();
    if (!spec.is_model()) return;
    QString error;
    const auto id =
        pickToken(*spec.model->tokenizer, spec.model->model->info().vocab, edit_->text(), &error);
    if (!id) {
        status_->setText(error);
        return;
    }
    setToken(*id);
}

void AttributionView::setToken(std::optional<std::int32_t> token) {
    token_ = token;
    tokenModel_ = scene_->spec().model;
    refresh();
}

void AttributionView::clearShown(const QString& why) {
    result_ = {};
    map_->clear();
    map_->setTitle(tr("Each head's direct contribution to the logit"));  // of no token now
    bars_->setData({}, {});
    top_->clear();
    sum_->clear();
    status_->setText(why);
}

void AttributionView::refresh() {
    visible_->clear();
    const attn::SceneSpec spec = scene_->spec();
    // A token picked in another model's vocabulary means nothing in this one.
    if (spec.model != tokenModel_) token_.reset();
    tokenModel_ = spec.model;
    if (!spec.is_model()) {
        Scheduler::instance().cancel(this, kJob);
        clearShown(tr("Attribution splits a model's logit: open a model folder."));
        return;
    }
    status_->setText(tr("Attributing…"));
    const auto folder = spec.model;
    const std::optional<std::int32_t> wanted = token_;
    // The run is the window's, kept (LayerCache::runs): the scene's own, no second one.
    Scheduler::instance().run(
        this, kJob,
        [spec, folder, wanted, runs = LayerCache::of(scene_)->runs()](attn::Progress& progress) {
            const auto run = runs->run(spec, &progress);
            AttributionDelivery d;
            d.top = attn::model::top_next_tokens(*run, *folder, 10);
            const std::int32_t token = wanted ? *wanted : d.top.empty() ? 0 : d.top.front().id;
            d.attribution =
                attn::interv::attribute(*folder->model, run->ids, token, run->controls, &progress);
            d.name = tokenName(*folder->tokenizer, token);
            d.text = QString::fromStdString(folder->tokenizer->token_text(token));
            d.ids = run->ids;
            for (const std::string& t : folder->tokenizer->display_tokens(run->ids))
                d.tokens << visibleToken(QString::fromStdString(t));
            return d;
        },
        [this](AttributionDelivery d) {
            text_ = std::move(d.text);
            display(std::move(d.attribution), std::move(d.top), std::move(d.name), std::move(d.ids),
                    std::move(d.tokens));
        },
        // Refused (e.g. a bidirectional model): nothing of the previous run stays under it.
        [this](const QString& error) { clearShown(error); });
}

void AttributionView::display(attn::interv::Attribution a, std::vector<attn::NextToken> top,
                              QString name, std::vector<std::int32_t> ids, QStringList tokens) {
    result_ = std::move(a);
    ids_ = std::move(ids);
    tokens_ = std::move(tokens);
    name_ = name;
    {
        const QSignalBlocker block(top_);
        top_->clear();
        for (const attn::NextToken& t : top) {
            auto* item =
                new QListWidgetItem(quotedToken(visibleToken(QString::fromStdString(t.text))) +
                                    QStringLiteral("  ") + percentText(double(t.probability)));
            item->setData(Qt::UserRole, t.id);
            top_->addItem(item);
            if (t.id == result_.token) item->setSelected(true);
        }
    }
    const int layers = int(result_.heads.rows()), heads = int(result_.heads.cols());
    QStringList rows, cols;
    for (int l = 1; l <= layers; ++l)
        rows << QString::number(l);
    for (int h = 1; h <= heads; ++h)
        cols << QString::number(h);
    map_->setData(result_.heads, rows, cols);
    map_->setTitle(tr("Each head's direct contribution to the logit of %1").arg(name));
    std::vector<double> values;
    QStringList labels;
    for (int l = 0; l < layers; ++l) {
        values.push_back(double(result_.mlp(l)));
        labels << tr("MLP %1").arg(l + 1);
    }
    values.push_back(result_.embed);
    labels << tr("embedding");
    values.push_back(double(result_.attn_bias.sum()));
    labels << tr("attention biases");
    values.push_back(result_.norm_bias);
    labels << tr("final norm bias");
    bars_->setData(values, labels);
    bars_->setTitle(tr("MLPs, embedding, biases"));
    barsFrame_->setContentMinimum(QSize(0, bars_->minimumSizeHint().height()));
    const double heads_sum = double(result_.heads.sum());
    sum_->setText(tr("The parts sum to the logit: heads %1 + MLPs %2 + embedding %3 + biases "
                     "%4 = %5; the logit of %6 is %7 (final norm's scale frozen).")
                      .arg(heads_sum, 0, 'f', 4)
                      .arg(double(result_.mlp.sum()), 0, 'f', 4)
                      .arg(result_.embed, 0, 'f', 4)
                      .arg(double(result_.attn_bias.sum()) + result_.norm_bias, 0, 'f', 4)
                      .arg(result_.total(), 0, 'f', 4)
                      .arg(name)
                      .arg(result_.logit, 0, 'f', 4));
    status_->setText(
        tr("Direct logit attribution at the last position (Elhage et al., 2021): "
           "red raises the logit, blue lowers it."));
    Q_EMIT computed();
}
