// AttnScope — a labelled matrix of coloured cells (the interventions' maps), and a list of
// signed bars. Drawing only. GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <QWidget>

class QPainter;
#include <functional>
#include <vector>

#include "attn/util/types.hpp"

/// A matrix drawn as coloured cells with row and column labels, an optional text in each cell,
/// and a colour key. Sequential (0 … max, light to dark) or diverging (blue − 0 white + red,
/// symmetric about 0). Hover shows tipAt(row, column); a click emits cellClicked. Every column
/// is labelled when the labels fit (turned upright when they do not fit side by side), else
/// every k-th and always the emphasised ones.
class CellMap : public QWidget {
    Q_OBJECT
  public:
    enum class Scale { Sequential, Diverging };
    explicit CellMap(QWidget* parent = nullptr);

    /// Shows VALUES (rows × columns) with the labels; TEXTS (row-major, or empty) inside cells.
    void setData(const attn::Matrix& values, QStringList rowLabels, QStringList columnLabels,
                 QStringList texts = {});
    void clear();
    void setScale(Scale scale) { scale_ = scale, update(); }
    /// Colour range: sequential [0, hi], diverging [−hi, hi]; hi ≤ 0: from the data.
    void setLimit(double hi) { limit_ = hi, update(); }
    /// With the range from the data: never narrower than FLOOR (a patching map keeps ±1, the
    /// full restoration, and widens to its largest value).
    void setRangeFloor(double floor) { floor_ = floor, update(); }
    /// Values marked and numbered on the colour key besides its ends (e.g. −1, 0, 1).
    void setKeyMarks(std::vector<double> marks) { marks_ = std::move(marks), update(); }
    /// Columns always labelled, in bold (e.g. where two prompts differ).
    void setEmphasisedColumns(std::vector<int> columns);
    /// The colour range's upper end (the lower is −range or 0).
    double range() const;
    /// The columns whose labels are drawn at the current size, and whether upright.
    std::vector<int> labelledColumns() const;
    bool uprightLabels() const;
    void setTitle(const QString& title) { title_ = title, update(); }
    /// The axis names drawn beside the labels.
    void setAxisNames(const QString& rows, const QString& columns);
    void setTip(std::function<QString(int, int)> tip) { tip_ = std::move(tip); }
    /// Writes each cell's value in it when there is room and no text is given.
    void setShowValues(bool on) { showValues_ = on, update(); }

    const attn::Matrix& values() const { return values_; }
    const QStringList& rowLabels() const { return rows_; }
    const QStringList& columnLabels() const { return columns_; }
    const QStringList& texts() const { return texts_; }
    const QString& title() const { return title_; }
    /// The cell at widget position POS as (row, column); (−1, −1) outside the cells.
    QPoint cellAt(const QPoint& pos) const;
    /// The centre of cell (ROW, COLUMN) in widget coordinates.
    QPoint cellCentre(int row, int column) const;
    /// The colour of VALUE in the current range.
    QColor colorOf(double value) const;
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

  Q_SIGNALS:
    void cellClicked(int row, int column);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

  private:
    struct ColumnLabels {
        bool upright = false;
        int band = 0;  ///< the labels' height below the cells
        std::vector<int> shown;
    };
    /// The column labels' layout for cells of width W.
    ColumnLabels columnLabels(double w) const;
    /// The left edge of the cells (after the row labels and the axis name).
    int cellLeft() const;
    /// The title's height, wrapped to the width.
    int titleHeight() const;
    /// The cells' rectangle (labels, title and key around it).
    QRectF cellArea() const;
    void paintLabels(QPainter& p, const QRectF& a) const;
    /// The colour key below the labels, from y down.
    void paintKey(QPainter& p, const QRectF& a, double y) const;

    attn::Matrix values_;
    QStringList rows_, columns_, texts_;
    QString title_, rowName_, columnName_;
    Scale scale_ = Scale::Sequential;
    double limit_ = 0;
    double floor_ = 0;
    std::vector<double> marks_;
    std::vector<int> emphasised_;
    bool showValues_ = false;
    std::function<QString(int, int)> tip_;
};

/// Horizontal signed bars, one per label, coloured as a diverging CellMap scaled to the largest.
class BarList : public QWidget {
    Q_OBJECT
  public:
    explicit BarList(QWidget* parent = nullptr);
    void setData(std::vector<double> values, QStringList labels);
    void setTitle(const QString& title) { title_ = title, update(); }
    const std::vector<double>& values() const { return values_; }
    const QStringList& labels() const { return labels_; }
    const QString& title() const { return title_; }
    /// One bar as painted: its label's, bar's and number's rectangles; a row too short for its
    /// text (a figure squeezed below the minimum) keeps its bar, and only every k-th row is
    /// labelled (the others' label and number rectangles are empty).
    struct Row {
        QRectF label, bar, number;
    };
    std::vector<Row> rows() const;
    QSize sizeHint() const override;
    /// Every row a line of text tall: a column too short for that scrolls (the attribution
    /// view puts the list in a ScrollFrame).
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    int rowPitch() const;
    int titleHeight() const;
    std::vector<double> values_;
    QStringList labels_;
    QString title_;
};
