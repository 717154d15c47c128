// AttnScope — a column of panels that scrolls up and down, never sideways. GPL-3.0-or-later.
#pragma once

#include <QScrollArea>

/// A frameless scroll area whose content is exactly as wide as the viewport: text wraps and
/// lists scroll inside it, so that a long line can never widen the column past the dock, cut off
/// its right side and scroll it sideways when a button there takes the focus.
class ColumnScroll : public QScrollArea {
    Q_OBJECT
  public:
    explicit ColumnScroll(QWidget* content, QWidget* parent = nullptr);

  protected:
    bool viewportEvent(QEvent* event) override;
};
