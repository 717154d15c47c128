// AttnScope — the logit lens: positions × layers, the likeliest token of the residual stream
// read through the final norm and the output head. GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "attn/interventions/lens.hpp"

class CellMap;
class QLabel;
class Scene;
class WhileVisible;

/// The scene's model run read as a logit lens (attn::interv::lens_table), computed by the
/// scheduler's job kJob while the view is visible. Rows: after the embedding and after each
/// layer; columns: the sentence's positions; each cell its top token, coloured by its
/// probability; hover shows the top 5.
class LogitLensView : public QWidget {
    Q_OBJECT
  public:
    explicit LogitLensView(Scene* scene, QWidget* parent = nullptr);
    ~LogitLensView() override;
    static const QString kJob;

    /// The table on show (empty before the first result, or for a scene without a model).
    const attn::interv::LensTable& table() const { return table_; }
    CellMap* map() const { return map_; }
    QLabel* status() const { return status_; }
    /// Starts the job now (the command line then waits for it).
    void refresh();
    /// The prompt's token ids and drawable tokens of the table on show (its columns).
    const std::vector<std::int32_t>& tokenIds() const { return ids_; }
    const QStringList& tokens() const { return tokens_; }
    /// Each cell's kLensTop drawable token texts, cell-major.
    const QStringList& topNames() const { return names_; }
    /// The top-5 text of cell ROW, POSITION.
    QString cellTip(int row, int position) const;

  Q_SIGNALS:
    void computed();

  private:
    void display(attn::interv::LensTable table, QStringList tokens, QStringList names,
                 std::vector<std::int32_t> ids);

    Scene* scene_;
    CellMap* map_;
    QLabel* status_;
    WhileVisible* visible_;
    attn::interv::LensTable table_;
    QStringList tokens_;             ///< the sentence's tokens (columns)
    QStringList names_;              ///< each cell's kLensTop token texts, cell-major
    std::vector<std::int32_t> ids_;  ///< the sentence's token ids
};
