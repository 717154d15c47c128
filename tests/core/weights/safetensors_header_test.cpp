// A safetensors header the size of a large sharded checkpoint's (200,000 tensors) parses, every
// entry where the header puts it; a repeated name and shared bytes are still refused among them.
// GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cstring>

#include "../io_test_util.hpp"
#include "../many_tensors.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/safetensors.hpp"

namespace {

constexpr std::size_t kTensors = 200000;
constexpr std::size_t kFewer = 20000;  // the refusals among many: fewer, to stay quick

std::string message_of(const std::string& path) {
    try {
        const attn::model::SafetensorsFile f(path);
    } catch (const attn::FormatError& e) {
        return e.what();
    }
    return "(opened)";
}

TEST(SafetensorsHeader, TwoHundredThousandTensorsParseWithTheirBytes) {
    const io_test::TempDir dir;
    const std::string path = dir.file("model.safetensors");
    many_tensors::write(path, kTensors);
    const attn::model::SafetensorsFile f(path);
    ASSERT_EQ(f.tensors().size(), kTensors);
    for (const std::size_t i :
         {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(123457), kTensors - 1}) {
        const attn::model::TensorInfo* t = f.find(many_tensors::name(i));
        ASSERT_NE(t, nullptr) << many_tensors::name(i);
        EXPECT_EQ(t->dtype_name, "F32");
        EXPECT_EQ(t->shape, (std::vector<std::int64_t>{1}));
        ASSERT_EQ(t->bytes.size(), 4u);
        float v = -1;
        std::memcpy(&v, t->bytes.data(), 4);
        EXPECT_EQ(v, float(i)) << many_tensors::name(i);
    }
    std::size_t elements = 0;
    for (const auto& [name, t] : f.tensors())
        elements += std::size_t(t.count());
    EXPECT_EQ(elements, kTensors);
}

TEST(SafetensorsHeader, ARepeatedNameAmongManyIsRefusedByName) {
    const io_test::TempDir dir;
    const std::string path = dir.file("model.safetensors");
    // The last entry repeats the first name: a JSON object would keep only one of them.
    many_tensors::write(path, kFewer,
                        ",\"" + many_tensors::name(0) +
                            "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}");
    const std::string msg = message_of(path);
    EXPECT_NE(msg.find(path + ": tensor \"" + many_tensors::name(0) + "\" appears twice"),
              std::string::npos)
        << msg;
}

TEST(SafetensorsHeader, SharedBytesAmongManyAreRefusedByName) {
    const io_test::TempDir dir;
    const std::string path = dir.file("model.safetensors");
    // One more tensor on tensor 5's bytes.
    many_tensors::write(path, kFewer,
                        ",\"extra\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[20,24]}");
    const std::string msg = message_of(path);
    EXPECT_NE(msg.find("\"extra\" and \"" + many_tensors::name(5) + "\" overlap"),
              std::string::npos)
        << msg;
}

TEST(SafetensorsHeader, MalformedJsonIsStillNamed) {
    const io_test::TempDir dir;
    const std::string path = dir.file("model.safetensors");
    many_tensors::write(path, 10, ",\"broken\":{");
    const std::string msg = message_of(path);
    EXPECT_EQ(msg.rfind(path + ": header is not JSON", 0), 0u) << msg;
}

}  // namespace
