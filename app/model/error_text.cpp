// AttnScope — what the user reads of an exception. GPL-3.0-or-later.
#include "model/error_text.hpp"

#include <QCoreApplication>
#include <new>

#include "attn/util/error.hpp"

QString errorText(const std::exception& e, const QString& subject) {
    if (dynamic_cast<const attn::Error*>(&e)) return QString::fromUtf8(e.what());
    const QString what = dynamic_cast<const std::bad_alloc*>(&e)
                             ? QCoreApplication::translate("errors", "not enough memory")
                             : QCoreApplication::translate("errors", "an unexpected error");
    return QCoreApplication::translate("errors", "%1: %2 (please report it)").arg(subject, what);
}
