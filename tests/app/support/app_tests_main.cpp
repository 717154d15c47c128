// AttnScope — the main of app_tests: `app_tests NAME [QtTest arguments]` runs the test NAME
// (a tests/app/NAME.cpp) as its own program would; `app_tests` alone lists them.
// GPL-3.0-or-later.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "app_test_registry.hpp"

namespace {

struct Entry {
    app_tests::Main main;
    std::string file;
};

std::map<std::string, Entry>& registry() {
    static std::map<std::string, Entry> tests;
    return tests;
}

std::string baseName(const char* file) {
    std::string name = file;
    const auto slash = name.find_last_of("/\\");
    if (slash != std::string::npos) name.erase(0, slash + 1);
    const auto dot = name.rfind('.');
    if (dot != std::string::npos) name.erase(dot);
    return name;
}

}  // namespace

bool app_tests::add(const char* file, Main main) {
    const std::string name = baseName(file);
    const auto [it, inserted] = registry().emplace(name, Entry{main, file});
    if (!inserted) {
        std::fprintf(stderr, "app_tests: two tests named %s (%s and %s)\n", name.c_str(),
                     it->second.file.c_str(), file);
        std::_Exit(2);
    }
    return true;
}

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--list") == 0) {
        if (argc < 2) std::fprintf(stderr, "usage: app_tests NAME [QtTest arguments]\n");
        for (const auto& [name, entry] : registry())
            std::printf("%s\n", name.c_str());
        return argc < 2 ? 2 : 0;
    }
    const auto it = registry().find(argv[1]);
    if (it == registry().end()) {
        std::fprintf(stderr, "app_tests: no test named %s (app_tests --list lists them)\n",
                     argv[1]);
        return 2;
    }
    // The test sees its own program's name as argv[0] (Qt's default application name, and so
    // its paths, come from it) and its arguments after it, as its own program did.
    std::string program = argv[0];
    const auto slash = program.find_last_of('/');
    program.erase(slash == std::string::npos ? 0 : slash + 1);
    program += "app_" + it->first;
    argv[1] = program.data();
    return it->second.main(argc - 1, argv + 1);
}
