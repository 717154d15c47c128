// Weights are read, not faulted in: MappedFile::read copies exactly the mapped bytes and refuses a
// range outside the file or a file cut short on disk, naming it; a .safetensors file checks
// every F32 value when it opens (one pass on every thread) and refuses the first NaN or infinity
// of the file, naming the tensor and the element, whichever thread finds which.
// GPL-3.0-or-later.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "../io_test_util.hpp"
#include "attn/files/mapped_file.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/safetensors.hpp"

namespace {

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(MappedFileRead, CopiesTheMappedBytesAndNamesTheFileWhenItCannot) {
    const io_test::TempDir dir;
    const std::string path = dir.file("blob.bin");
    std::vector<unsigned char> bytes(10000);
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<unsigned char>(i * 7 + i / 256);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    const attn::io::MappedFile f(path);
    const std::byte* base = f.bytes().data();
    for (const auto& [at, n] : {std::pair<std::size_t, std::size_t>{0, 10000},
                                {1, 4095},
                                {4095, 2},
                                {9999, 1},
                                {5000, 0}}) {
        std::vector<unsigned char> out(n + 1, 0xAB);
        f.read(base + at, n, out.data());
        EXPECT_EQ(std::memcmp(out.data(), bytes.data() + at, n), 0) << at << "+" << n;
        EXPECT_EQ(out[n], 0xAB) << "wrote past " << n << " bytes";
    }
    unsigned char one = 0;
    const std::string outside = message_of([&] { f.read(base + 9999, 2, &one); });
    EXPECT_NE(outside.find("blob.bin"), std::string::npos) << outside;
    EXPECT_NE(outside.find("outside the file"), std::string::npos) << outside;
    EXPECT_NE(outside.find("10000 bytes"), std::string::npos) << outside;
    // Cut short on disk while mapped: the read says so (reading the mapping would be a SIGBUS).
    ASSERT_EQ(::truncate(path.c_str(), 5000), 0);
    std::vector<unsigned char> out(100);
    const std::string shorter = message_of([&] { f.read(base + 6000, 100, out.data()); });
    EXPECT_NE(shorter.find("blob.bin"), std::string::npos) << shorter;
    EXPECT_NE(shorter.find("shorter now"), std::string::npos) << shorter;
}

/// A .safetensors file of F32 tensors NAME → values, and one F16 tensor "h" of two values.
std::string write_f32(const io_test::TempDir& dir,
                      const std::map<std::string, std::vector<float>>& t) {
    nlohmann::json header = nlohmann::json::object();
    std::size_t at = 0;
    for (const auto& [name, v] : t) {
        header[name] = {
            {"dtype", "F32"}, {"shape", {v.size()}}, {"data_offsets", {at, at + 4 * v.size()}}};
        at += 4 * v.size();
    }
    header["h"] = {{"dtype", "F16"}, {"shape", {2}}, {"data_offsets", {at, at + 4}}};
    std::string h = header.dump();
    h.resize((h.size() + 7) / 8 * 8, ' ');
    const std::string path = dir.file("model.safetensors");
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t n = h.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(h.data(), std::streamsize(h.size()));
    for (const auto& [name, v] : t)
        out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(4 * v.size()));
    const std::uint16_t nan_f16[2] = {0x7e00, 0x3c00};  // F16 is checked where it is used
    out.write(reinterpret_cast<const char*>(nan_f16), 4);
    return path;
}

TEST(SafetensorsFinite, TheFirstNonFiniteF32ValueOfTheFileIsRefusedByName) {
    const io_test::TempDir dir;
    // Several 1 MB slices each, so that both threads have some of every tensor.
    constexpr std::size_t kN = 600000;
    std::vector<float> a(kN), b(kN);
    for (std::size_t i = 0; i < kN; ++i) {
        a[i] = float(i % 1000) * 0.5f;
        b[i] = -float(i % 777);
    }
    {
        const attn::model::SafetensorsFile f(write_f32(dir, {{"a", a}, {"b", b}}));
        EXPECT_TRUE(f.find("a")->finite);
        EXPECT_TRUE(f.find("b")->finite);
        EXPECT_FALSE(f.find("h")->finite);
    }
    b[500000] = std::numeric_limits<float>::infinity();
    std::string m = message_of([&] {
        attn::model::SafetensorsFile f(write_f32(dir, {{"a", a}, {"b", b}}));
    });
    EXPECT_NE(
        m.find("model.safetensors: tensor \"b\" has a non-finite value (inf) at element 500000."),
        std::string::npos)
        << m;
    // Two: the one earlier in the file is named, on every run.
    a[300001] = std::nanf("");
    for (int run = 0; run < 5; ++run) {
        m = message_of([&] {
            attn::model::SafetensorsFile f(write_f32(dir, {{"a", a}, {"b", b}}));
        });
        EXPECT_NE(m.find("tensor \"a\" has a non-finite value (nan) at element 300001."),
                  std::string::npos)
            << m;
    }
}

}  // namespace
