// AttnScope — one strip per attribution method over the sentence's tokens. Drawing only.
// GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

/// Rows of coloured cells, one per method, one cell per token, each row scaled to its own
/// largest |value| (signed methods blue − white + red, the others white → dark), the explained
/// position outlined. A row the family refuses shows the refusal instead of cells. Hover shows
/// the number; a click on a row emits rowClicked.
class InfluenceStrips : public QWidget {
    Q_OBJECT
  public:
    struct Row {
        QString label;  ///< the method's name, drawn left of its cells
        std::vector<double> values;
        QString refusal;  ///< drawn instead of the cells when set
        bool signedValues = false;
    };
    explicit InfluenceStrips(QWidget* parent = nullptr);
    /// The narrowest a cell is drawn: a longer run scrolls.
    static constexpr int kLeastCell = 14;

    void setData(std::vector<Row> rows, QStringList tokens, int position);
    void clear();
    void setTitle(const QString& title) { title_ = title, update(); }
    const QString& title() const { return title_; }
    const std::vector<Row>& rows() const { return rows_; }
    const QStringList& tokens() const { return tokens_; }
    int position() const { return position_; }
    /// The hover text of cell (ROW, COLUMN): the method, the token, the number.
    QString tipAt(int row, int column) const;
    /// The centre of cell (ROW, COLUMN), and the cell at POS ((−1, −1) outside).
    QPoint cellCentre(int row, int column) const;
    QPoint cellAt(const QPoint& pos) const;
    /// Where a row's label and cells are drawn (the label's rectangle for fit checks).
    QRect labelRect(int row) const;
    QRect cellsRect(int row) const;
    /// The colour of VALUE in ROW's scale.
    QColor colorOf(int row, double value) const;
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

  Q_SIGNALS:
    void rowClicked(int row);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

  private:
    int pitch() const;
    int labelWidth() const;
    int titleHeight() const;
    int tokenBand() const;
    double cellWidth() const;

    std::vector<Row> rows_;
    QStringList tokens_;
    int position_ = -1;
    QString title_;
};
