// AttnScope — direct logit attribution: each head's, MLP's and the embedding's share of one
// token's logit at the last position. GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "attn/interventions/attribution.hpp"
#include "attn/scene/scene.hpp"

class BarList;
class CellMap;
class QLabel;
class QLineEdit;
class QListWidget;
class Scene;
class ScrollFrame;
class WhileVisible;

/// Pick a token (a click on the next-token top 10, or its text or id typed): a layers × heads
/// map of each head's direct contribution to its logit (diverging, centred at 0), bars for
/// each MLP, the embedding and the biases, and a line saying the parts sum to the logit.
/// Computed by the scheduler's job kJob while visible.
class AttributionView : public QWidget {
    Q_OBJECT
  public:
    explicit AttributionView(Scene* scene, QWidget* parent = nullptr);
    ~AttributionView() override;
    static const QString kJob;

    /// The attribution on show (empty heads before the first).
    const attn::interv::Attribution& attribution() const { return result_; }
    /// The prompt's token ids and drawable tokens, and the attributed token's name, of the
    /// attribution on show.
    const std::vector<std::int32_t>& tokenIds() const { return ids_; }
    const QStringList& tokens() const { return tokens_; }
    const QString& tokenLabel() const { return name_; }
    /// The attributed token's own text (no quotes, no id): what exports label it with.
    const QString& tokenText() const { return text_; }
    CellMap* map() const { return map_; }
    BarList* bars() const { return bars_; }
    QListWidget* topTokens() const { return top_; }
    QLineEdit* tokenEdit() const { return edit_; }
    QLabel* sumLabel() const { return sum_; }
    QLabel* status() const { return status_; }
    /// Attributes TOKEN (nullopt: the likeliest next token).
    void setToken(std::optional<std::int32_t> token);
    void refresh();

  Q_SIGNALS:
    void computed();

  private:
    void onTyped();
    /// Shows nothing of an attribution, and WHY.
    void clearShown(const QString& why);
    void display(attn::interv::Attribution a, std::vector<attn::NextToken> top, QString name,
                 std::vector<std::int32_t> ids, QStringList tokens);

    Scene* scene_;
    CellMap* map_;
    BarList* bars_;
    ScrollFrame* barsFrame_;  ///< scrolls the bars when the column is shorter than their rows
    QListWidget* top_;
    QLineEdit* edit_;
    QLabel* sum_;
    QLabel* status_;
    WhileVisible* visible_;
    std::optional<std::int32_t> token_;
    std::shared_ptr<const attn::model::ModelFolder> tokenModel_;  ///< the model token_ is of
    attn::interv::Attribution result_;
    std::vector<std::int32_t> ids_;
    QStringList tokens_;
    QString name_, text_;
};
