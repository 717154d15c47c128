// AttnScope — a spin box of an index counted from 0 inside the program and shown from 1, as the
// window numbers queries and keys (model/numbering.hpp). GPL-3.0-or-later.
#pragma once

#include <QSpinBox>

#include "model/numbering.hpp"

/// Its value() is the index (from 0: what sessions and the code keep); its text is shown(value)
/// and a typed number is read the same way, so a user types the query the window calls 3.
class IndexSpinBox : public QSpinBox {
  public:
    using QSpinBox::QSpinBox;

  protected:
    QString textFromValue(int value) const override { return QString::number(shown(value)); }
    int valueFromText(const QString& text) const override { return text.toInt() - 1; }
    QValidator::State validate(QString& text, int&) const override {
        bool ok = false;
        const int v = text.toInt(&ok) - 1;
        if (text.isEmpty()) return QValidator::Intermediate;
        if (!ok) return QValidator::Invalid;
        return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    }
};
