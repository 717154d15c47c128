// AttnScope — the common ground of the Views tab's views. GPL-3.0-or-later.
#include "views/attention_view.hpp"

#include <QPainter>
#include <algorithm>

#include "model/numbering.hpp"

Eigen::RowVectorXf ShownAttention::selectedRow(bool sum) const {
    if (queries.empty()) return {};
    return attn::combined_row(weights, queries, sum ? attn::Combine::Sum : attn::Combine::Mean);
}

Eigen::VectorXf ShownAttention::selectedColumn(bool sum) const {
    if (keys.empty()) return {};
    return attn::combined_column(weights, keys, sum ? attn::Combine::Sum : attn::Combine::Mean);
}

namespace {

/// The mean or max over the heads of a result, computed once per result and reduction however
/// many views show it and however often the selection changes (GUI thread only). Keyed by the
/// result's ownership: a recycled result at the same address is another result.
const attn::Matrix& reducedOnce(const SceneResultPtr& result, attn::HeadReduce reduce) {
    struct Entry {
        std::weak_ptr<const attn::SceneResult> result;
        attn::HeadReduce reduce;
        attn::Matrix weights;
    };
    static std::vector<Entry> held;  // at most one per reduction: the newest result's
    const auto same = [&](const Entry& e) {
        return !e.result.owner_before(result) && !result.owner_before(e.result) &&
               e.reduce == reduce;
    };
    for (const Entry& e : held)
        if (same(e)) return e.weights;
    std::erase_if(held, [&](const Entry& e) { return e.reduce == reduce || e.result.expired(); });
    held.push_back({result, reduce, attn::reduced_weights(*result, reduce, 0)});
    return held.back().weights;
}

}  // namespace

ShownAttention shownAttention(const SceneResultPtr& ptr, const Selection& selection,
                              const ViewOptions& options, int head) {
    ShownAttention s;
    if (!ptr) return s;
    const attn::SceneResult& result = *ptr;
    // A long (streamed) scene holds no n × n weights: these views draw every token, so they show
    // nothing rather than a matrix of gigabytes; the heatmaps zoom into it instead.
    if (result.heads.empty() || result.storage == attn::Storage::Streamed) return s;
    head = std::clamp(head, 0, static_cast<int>(result.heads.size()) - 1);
    // One head's weights are copied as they are; a mean or max is computed once per result.
    s.weights = options.reduce == attn::HeadReduce::One
                    ? attn::reduced_weights(result, options.reduce, head)
                    : reducedOnce(ptr, options.reduce);
    s.qTokens = result.q_tokens;
    s.kTokens = result.k_tokens;
    std::vector<attn::Index> queries;
    for (int q : selection.selectedQueries())
        if (q >= 0 && q < s.weights.rows()) queries.push_back(q);
    s.key = selection.key < s.weights.cols() ? selection.key : -1;
    for (int k : selection.selectedKeys())
        if (k >= 0 && k < s.weights.cols()) s.keys.push_back(k);
    s.merged = result.merged_words;
    std::sort(queries.begin(), queries.end());
    queries.erase(std::unique(queries.begin(), queries.end()), queries.end());
    s.queries = queries;
    return s;
}

QColor headColor(int head) {
    // Tableau 10 and two more: what BertViz users know, distinct on white.
    static const QRgb kColors[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b,
                                   0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf, 0x393b79, 0xad494a};
    constexpr int n = static_cast<int>(std::size(kColors));
    if (head < n) return QColor(kColors[head]);
    return QColor::fromHsv((head * 47) % 360, 200, 200);
}

QString selectionSummary(const Selection& selection, const std::vector<std::string>& tokens) {
    const std::vector<int> qs = selection.selectedQueries();
    if (qs.empty()) return QObject::tr("no query selected");
    const auto label = [&](int q) {
        return q < static_cast<int>(tokens.size())
                   ? QStringLiteral("“%1” (%2)")
                         .arg(QString::fromStdString(tokens[std::size_t(q)]))
                         .arg(shown(q))
                   : QString::number(shown(q));
    };
    if (qs.size() == 1) return QObject::tr("query %1").arg(label(qs[0]));
    QStringList names;
    for (int q : qs)
        names << label(q);
    return (selection.sum ? QObject::tr("sum of %1 queries: %2")
                          : QObject::tr("mean of %1 queries: %2"))
        .arg(qs.size())
        .arg(names.join(QStringLiteral(", ")));
}

AttentionView::AttentionView(const QString& name, QWidget* parent) : QWidget(parent) {
    setObjectName(name);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setMouseTracking(true);
}

QString AttentionView::vectorsMissing(const QString& view) const {
    if (!result_) return tr("No scene yet");
    if (result_->merged_words)
        return tr(
            "Sub-words are merged into words: a word has no query or key vector of its own "
            "(its weights are its pieces' mean and sum). Turn off “Merge sub-words into "
            "words” to see the pieces' vectors.");
    if (!result_->has_qk)
        return tr("%1 needs query and key vectors: a computed scene, or an .npz with q and k "
                  "(docs/session-format.md). These are loaded weights or scores.")
            .arg(view);
    return {};
}

bool AttentionView::drawMessage(QPainter& painter, const QString& message) const {
    if (message.isEmpty()) return false;
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                     message);
    return true;
}

void AttentionView::setResult(SceneResultPtr result) {
    result_ = std::move(result);
    rebuild();
}

void AttentionView::setSelection(const Selection& selection) {
    if (selection == selection_) return;
    selection_ = selection;
    rebuild();
}

void AttentionView::setOptions(const ViewOptions& options) {
    if (options == options_) return;
    options_ = options;
    rebuild();
}

void AttentionView::rebuild() {
    shown_ = shownAttention(result_, selection_, options_, selection_.head);
    update();
}

Selection AttentionView::clickedQuery(int row, Qt::KeyboardModifiers modifiers) const {
    Selection s = selection_;
    const int token = row;
    // As in every list: ctrl-click toggles one, shift-click selects the range up to it.
    if (modifiers & Qt::ControlModifier) return s.withQueryToggled(token);
    if (modifiers & Qt::ShiftModifier) return s.withQueryRange(token);
    s.queries.clear();
    s.query = token;
    return s;
}

Selection AttentionView::clickedKey(int column, Qt::KeyboardModifiers modifiers) const {
    if (modifiers & Qt::ControlModifier) return selection_.withKeyToggled(column);
    if (modifiers & Qt::ShiftModifier) return selection_.withKeyRange(column);
    Selection s = selection_;
    s.keys.clear();
    s.key = column;
    return s;
}
