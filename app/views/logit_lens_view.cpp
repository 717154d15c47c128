// AttnScope — the logit lens view. GPL-3.0-or-later.
#include "views/logit_lens_view.hpp"

#include <QLabel>
#include <QVBoxLayout>

#include "attn/scene/model_scene.hpp"
#include "model/layer_cache.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "model/while_visible.hpp"
#include "views/cell_map.hpp"
#include "views/screen_only.hpp"
#include "views/shown_text.hpp"
#include "views/token_pick.hpp"

const QString LogitLensView::kJob = QStringLiteral("logit lens");

namespace {
struct LensDelivery {
    attn::interv::LensTable table;
    QStringList tokens, names;
    std::vector<std::int32_t> ids;
};
}  // namespace

LogitLensView::LogitLensView(Scene* scene, QWidget* parent)
    : QWidget(parent), scene_(scene), map_(new CellMap), status_(new QLabel) {
    setObjectName(QStringLiteral("logitLensView"));
    map_->setObjectName(QStringLiteral("logitLensMap"));
    map_->setAxisNames(tr("residual stream"), tr("position (token)"));
    map_->setTitle(
        tr("Top token of each position's residual stream, through the final norm "
           "and the output head (colour: its probability)"));
    map_->setLimit(1.0);
    map_->setTip([this](int r, int c) { return cellTip(r, c); });
    // The map is the figure: the status line (how to read it on screen) is no part of exports.
    map_->setProperty(kFigureProperty, true);
    status_->setWordWrap(true);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 4, 6, 4);
    column->addWidget(status_);
    column->addWidget(map_, 1);
    visible_ = new WhileVisible(this, [this] { refresh(); });
    connect(scene_, &Scene::specChanged, visible_, &WhileVisible::stale);
}

LogitLensView::~LogitLensView() {
    Scheduler::instance().cancelAndWait(this);
}

void LogitLensView::refresh() {
    visible_->clear();
    const attn::SceneSpec spec = scene_->spec();
    if (!spec.is_model()) {
        Scheduler::instance().cancel(this, kJob);
        table_ = {};
        map_->clear();
        status_->setText(tr("The logit lens reads a model's run: open a model folder."));
        return;
    }
    status_->setText(tr("Computing the logit lens…"));
    const auto folder = spec.model;
    // The run is the window's, kept (LayerCache::runs): the scene's own, no second one.
    Scheduler::instance().run(
        this, kJob,
        [spec, folder, runs = LayerCache::of(scene_)->runs()](attn::Progress& progress) {
            const auto run = runs->run(spec, &progress);
            LensDelivery d;
            d.table = attn::interv::lens_table(*folder->model, *run, &progress);
            d.ids = run->ids;
            for (const std::string& t : folder->tokenizer->display_tokens(run->ids))
                d.tokens << visibleToken(QString::fromStdString(t));
            for (const attn::interv::LensCell& c : d.table.cells)
                for (std::int32_t id : c.ids)
                    d.names << visibleToken(
                        QString::fromStdString(folder->tokenizer->token_text(id)));
            return d;
        },
        [this](LensDelivery d) {
            display(std::move(d.table), std::move(d.tokens), std::move(d.names), std::move(d.ids));
        },
        [this](const QString& error) {
            // The scene on show has no lens: the previous run's map would pass for its.
            table_ = {};
            map_->clear();
            status_->setText(error);
        });
}

void LogitLensView::display(attn::interv::LensTable table, QStringList tokens, QStringList names,
                            std::vector<std::int32_t> ids) {
    table_ = std::move(table);
    ids_ = std::move(ids);
    tokens_ = std::move(tokens);
    names_ = std::move(names);
    const auto rows = table_.layers, cols = table_.positions;
    attn::Matrix p(rows, cols);
    QStringList texts;
    for (attn::Index r = 0; r < rows; ++r)
        for (attn::Index c = 0; c < cols; ++c) {
            p(r, c) = table_.at(r, c).probabilities[0];
            texts << names_.value(int((r * cols + c) * attn::interv::kLensTop));
        }
    map_->setData(p, streamRowLabels(int(rows) - 1), tokens_, texts);
    status_->setText(tr("Rows: the residual stream after the embedding and after each layer, "
                        "read as if it were the last (nostalgebraist, 2020). Hover a cell for "
                        "its top %1.")
                         .arg(attn::interv::kLensTop));
    Q_EMIT computed();
}

QString LogitLensView::cellTip(int row, int position) const {
    if (row < 0 || position < 0 || row >= table_.layers || position >= table_.positions) return {};
    const attn::interv::LensCell& c = table_.at(row, position);
    QString tip = tr("%1, position %2 %3")
                      .arg(streamRowLabels(int(table_.layers) - 1).value(row))
                      .arg(position + 1)
                      .arg(quotedToken(tokens_.value(position)));
    const int base = (row * int(table_.positions) + position) * attn::interv::kLensTop;
    for (int k = 0; k < attn::interv::kLensTop; ++k)
        tip += QStringLiteral("\n%1. %2 (%3)  %4")
                   .arg(k + 1)
                   .arg(quotedToken(names_.value(base + k)))
                   .arg(c.ids[std::size_t(k)])
                   .arg(percentText(double(c.probabilities[std::size_t(k)])));
    return tip;
}
