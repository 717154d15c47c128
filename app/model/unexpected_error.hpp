// AttnScope — where an error that escaped the GUI thread's code goes: a message, never the end
// of the process. GPL-3.0-or-later.
#pragma once

#include <QApplication>
#include <QObject>
#include <QString>
#include <exception>

/// The one place an exception that a slot, an event handler or a job's delivery let through is
/// reported. Letting it leave the event loop would end the process and every window's unsaved
/// work with it; instead each main window shows the message (a banner and the status bar) and
/// the document stays as it was.
class UnexpectedErrors : public QObject {
    Q_OBJECT
  public:
    /// The application's reporter (owned by the QCoreApplication, created on first use).
    static UnexpectedErrors& instance();
    /// Reports E (null: not a std::exception), caught while running WHAT ("the Generate
    /// button", "the Generate job's result").
    void report(const std::exception* e, const QString& what);
    /// The message report(E, WHAT) gives, naming what failed and what it means for the work.
    static QString message(const std::exception* e, const QString& what);

  Q_SIGNALS:
    /// Something failed; MESSAGE says what (see message()).
    void reported(const QString& message);
};

/// The application of the graphical program: every event is delivered inside a catch, so an
/// exception from any slot or event handler becomes UnexpectedErrors' message.
class GuardedApplication : public QApplication {
    Q_OBJECT
  public:
    GuardedApplication(int& argc, char** argv);
    bool notify(QObject* receiver, QEvent* event) override;
    /// How the user knows RECEIVER: a button's or a menu's text, else its object or class name.
    static QString describe(const QObject* receiver);
};
