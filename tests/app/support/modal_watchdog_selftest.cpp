// AttnScope — proves the modal watchdog (modal_watchdog.cpp): a message box that nobody answers
// must end the program with a message naming it, not hang. ctest expects that message.
// GPL-3.0-or-later.
#include <QApplication>
#include <QMessageBox>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QMessageBox::warning(nullptr, QStringLiteral("Selftest"),
                         QStringLiteral("nobody answers this box"));
    return 0;  // reached only if the watchdog failed to fire
}
