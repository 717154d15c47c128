// AttnScope — linked into every app test: a modal dialog that nobody answers fails the test
// within seconds, naming the dialog, instead of hanging until ctest's timeout. Tests that open
// a dialog answer it themselves (a QTimer polling QApplication::activeModalWidget()).
// GPL-3.0-or-later.
#include <QApplication>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QPointer>
#include <QTimer>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kPollMs = 200;
constexpr qint64 kUnansweredMs = 10000;  // longer than any answering timer or progress dialog

void startModalWatchdog() {
    if (!qobject_cast<QApplication*>(QCoreApplication::instance())) return;
    auto* timer = new QTimer(QCoreApplication::instance());
    timer->setInterval(kPollMs);
    QObject::connect(timer, &QTimer::timeout, [] {
        static QPointer<QWidget> seen;
        static QElapsedTimer since;
        QWidget* modal = QApplication::activeModalWidget();
        if (modal != seen) {
            seen = modal;
            since.start();
            return;
        }
        if (!modal || since.elapsed() < kUnansweredMs) return;
        QString text = modal->windowTitle();
        if (auto* box = qobject_cast<QMessageBox*>(modal))
            text += QStringLiteral(": ") + box->text();
        // A clean failing exit (not abort): ctest reports it as a failure, with this line.
        std::fprintf(stderr, "FAIL: unanswered modal dialog (%s) open for %lld ms: %s\n",
                     modal->metaObject()->className(), static_cast<long long>(since.elapsed()),
                     qPrintable(text));
        std::fflush(stderr);
        std::_Exit(3);
    });
    timer->start();
}

}  // namespace

Q_COREAPP_STARTUP_FUNCTION(startModalWatchdog)
