// AttnScope — included first in every source of app_tests (as its precompiled header, so it is
// also what every test file parses once): QtTest's main macros register the test with
// app_test_registry.hpp instead of defining main(), so QTEST_MAIN(X) stays what each test file
// writes. A test with its own main writes ATTN_QTEST_CUSTOM_MAIN(int argc, char** argv) { … }.
// GPL-3.0-or-later.
#pragma once

#include <QtTest/qtest.h>
#include <QtWidgets>

#include "app_test_registry.hpp"

#undef QTEST_MAIN_WRAPPER
#define QTEST_MAIN_WRAPPER(TestObject, ...)                                \
    static int attnQtestMain(int argc, char* argv[]) {                     \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>(); \
        __VA_ARGS__                                                        \
        TestObject tc;                                                     \
        QTEST_SET_MAIN_SOURCE_PATH                                         \
        return QTest::qExec(&tc, argc, argv);                              \
    }                                                                      \
    [[maybe_unused]] static const bool attnQtestRegistered =               \
        app_tests::add(__FILE__, &attnQtestMain);

// QTRY_*'s 5 s is a clock, not a condition: on a machine busy with other work a view computed
// in 1 s idle can take longer. The app tests wait on conditions (and on the scheduler:
// test_support::settleAll); the cap only bounds a wait that would otherwise never end.
#undef QTRY_VERIFY
#define QTRY_VERIFY(expr) QTRY_VERIFY_WITH_TIMEOUT(expr, 30000)
#undef QTRY_VERIFY2
#define QTRY_VERIFY2(expr, message) QTRY_VERIFY2_WITH_TIMEOUT(expr, message, 30000)
#undef QTRY_COMPARE
#define QTRY_COMPARE(expr, expected) QTRY_COMPARE_WITH_TIMEOUT(expr, expected, 30000)

#define ATTN_QTEST_CUSTOM_MAIN                               \
    static int attnQtestCustomMain(int, char**);             \
    [[maybe_unused]] static const bool attnQtestRegistered = \
        app_tests::add(__FILE__, &attnQtestCustomMain);      \
    static int attnQtestCustomMain
