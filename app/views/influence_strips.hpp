// AttnScope — one strip per attribution method over the sentence's tokens. Drawing only.
// GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

class QScrollBar;

/// Rows of coloured cells, one per method, one cell per token, each row scaled to its own
/// largest |value| (signed methods blue − white + red, the others white → dark), the explained
/// position outlined. Rows the family refuses for one reason share one block that shows it,
/// wrapped. A run too long for the width scrolls its cells sideways under the methods' names
/// (a figure draws them all). Hover shows the number; a click on a row emits rowClicked.
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
    /// The cells the least width keeps in view, the rest scrolling.
    static constexpr int kLeastCells = 12;

    void setData(std::vector<Row> rows, QStringList tokens, int position);
    void clear();
    void setTitle(const QString& title);
    const QString& title() const { return title_; }
    const std::vector<Row>& rows() const { return rows_; }
    const QStringList& tokens() const { return tokens_; }
    int position() const { return position_; }
    /// The hover text of cell (ROW, COLUMN): the method, the token, the number.
    QString tipAt(int row, int column) const;
    /// The centre of cell (ROW, COLUMN), and the cell at POS ((−1, −1) outside or scrolled away).
    QPoint cellCentre(int row, int column) const;
    QPoint cellAt(const QPoint& pos) const;
    /// Where a row's label and cells are drawn (the label's rectangle for fit checks; the cells'
    /// is the part in view).
    QRect labelRect(int row) const;
    QRect cellsRect(int row) const;
    /// The sideways scroll bar of a long run (hidden when every cell is in view).
    QScrollBar* scrollBar() const { return bar_; }
    /// The colour of VALUE in ROW's scale.
    QColor colorOf(int row, double value) const;
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

  Q_SIGNALS:
    void rowClicked(int row);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    bool event(QEvent* event) override;

  private:
    int pitch() const;
    int labelWidth() const;
    int titleHeight() const;
    int tokenBand() const;
    /// The width the cells have in view.
    int cellRoom() const;
    double cellWidth() const;
    /// Whether the cells are wider than their room (never in a figure, which shows them all).
    bool scrolls() const;
    bool inFigure() const;
    /// The top and height of every row: a block of rows refused for one reason is as tall as
    /// its wrapped reason needs.
    struct RowBox {
        int top = 0, height = 0;
    };
    std::vector<RowBox> rowBoxes() const;
    /// The rows of the refusal block ROW starts, or 0 when ROW is no block's first.
    int blockRows(int row) const;
    int offset() const;
    /// Sizes the scroll bar to the cells, and asks for the height the rows now need.
    void fit();

    std::vector<Row> rows_;
    QStringList tokens_;
    int position_ = -1;
    QString title_;
    QScrollBar* bar_;
    QSize hinted_;
};
