// AttnScope — where an error that escaped the GUI thread's code goes. GPL-3.0-or-later.
#include "model/unexpected_error.hpp"

#include <QAbstractButton>
#include <QMenu>
#include <QPointer>

#include "attn/util/error.hpp"
#include "model/error_text.hpp"

UnexpectedErrors& UnexpectedErrors::instance() {
    static QPointer<UnexpectedErrors> shared;
    if (!shared) shared = new UnexpectedErrors;
    if (!shared->parent() && QCoreApplication::instance())
        shared->setParent(QCoreApplication::instance());
    return *shared;
}

QString UnexpectedErrors::message(const std::exception* e, const QString& what) {
    QString head;
    if (dynamic_cast<const attn::Error*>(e))
        head = tr("%1 failed: %2").arg(what, QString::fromUtf8(e->what()));
    else if (e)
        head = errorText(*e, what);  // "WHAT: an unexpected error (please report it)"
    else
        head = tr("%1: an unexpected error (please report it)").arg(what);
    return tr("%1. The window and its unsaved changes are kept.").arg(head);
}

void UnexpectedErrors::report(const std::exception* e, const QString& what) {
    Q_EMIT reported(message(e, what));
}

GuardedApplication::GuardedApplication(int& argc, char** argv) : QApplication(argc, argv) {}

bool GuardedApplication::notify(QObject* receiver, QEvent* event) {
    try {
        return QApplication::notify(receiver, event);
    } catch (const attn::Cancelled&) {
        return false;  // a cancelled computation is no failure
    } catch (const std::exception& e) {
        UnexpectedErrors::instance().report(&e, describe(receiver));
    } catch (...) {
        UnexpectedErrors::instance().report(nullptr, describe(receiver));
    }
    return false;
}

QString GuardedApplication::describe(const QObject* receiver) {
    if (!receiver) return tr("An action");
    if (const auto* b = qobject_cast<const QAbstractButton*>(receiver); b && !b->text().isEmpty())
        return tr("The “%1” button").arg(QString(b->text()).remove(QLatin1Char('&')));
    if (const auto* m = qobject_cast<const QMenu*>(receiver); m && !m->title().isEmpty())
        return tr("The %1 menu").arg(QString(m->title()).remove(QLatin1Char('&')));
    if (receiver == QCoreApplication::instance()) return tr("A step queued on the window");
    if (!receiver->objectName().isEmpty()) return tr("“%1”").arg(receiver->objectName());
    return tr("An action of %1").arg(QString::fromLatin1(receiver->metaObject()->className()));
}
