// Helpers shared by the io tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>
#include <vector>

#include "attn/util/progress.hpp"

namespace io_test {

/// A file under tests/core/data.
inline std::string data(const std::string& rel) {
    return std::string(ATTN_TEST_DATA_DIR) + "/" + rel;
}
/// A file under tests/data/real (the real fixtures); a missing or unreadable one fails the
/// test at once, naming its path.
inline std::string real(const std::string& rel) {
    const std::string path = std::string(ATTN_FIXTURES_DIR) + "/" + rel;
    if (!std::ifstream(path, std::ios::binary).good())
        ADD_FAILURE() << "fixture missing or unreadable: " << path;
    return path;
}

/// A fresh temporary directory removed at scope exit.
struct TempDir {
    std::filesystem::path path;
    TempDir() {
        path = std::filesystem::temp_directory_path() /
               // The process id too: two test processes started in the same millisecond share the
               // seed, and under ASan even the object's address.
               ("attn_io_test_" + std::to_string(::getpid()) + "_" +
                std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                std::to_string(reinterpret_cast<std::uintptr_t>(this)));
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

/// Every fraction a load reports; asks to stop once one reaches cancel_after.
struct Recorder : attn::Progress {
    std::vector<double> seen;
    double cancel_after = 2.0;
    void update(double f) override { seen.push_back(f); }
    bool cancelled() const override { return !seen.empty() && seen.back() >= cancel_after; }
};

/// Writes text to a file.
inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

/// Runs f and returns the FormatError message ("" and a test failure when nothing is thrown).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const attn::FormatError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no FormatError thrown";
    return "";
}

}  // namespace io_test
