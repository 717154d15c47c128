// AttnScope — every app test is linked into one program, app_tests: each *_test.cpp registers
// its QtTest main here under its file's name, and `app_tests NAME [QtTest arguments]` runs that
// one test in its own process, as its own executable did. One program links Qt and core once
// instead of once per test. GPL-3.0-or-later.
#pragma once

namespace app_tests {

/// A test's main: QTEST_MAIN's body, or a test's own main.
using Main = int (*)(int argc, char** argv);

/// Registers MAIN under the base name of FILE (its __FILE__) without the extension; a second
/// test of the same name ends the program at start-up, naming both.
bool add(const char* file, Main main);

}  // namespace app_tests
