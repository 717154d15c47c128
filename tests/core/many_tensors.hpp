// AttnScope — a synthetic .safetensors file of many tiny tensors, the size of a sharded
// checkpoint's header: what safetensors_header_test.cpp and core_io_bench.cpp parse.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace many_tensors {

/// The name of tensor I.
inline std::string name(std::size_t i) {
    return "model.layers." + std::to_string(i / 8) + ".w" + std::to_string(i % 8);
}

/// Writes COUNT F32 tensors of shape [1] to PATH, tensor i holding the value i at bytes
/// [4i, 4i + 4); EXTRA is appended inside the header's object (e.g. a repeated name).
inline void write(const std::string& path, std::size_t count, const std::string& extra = "") {
    std::string header = "{";
    for (std::size_t i = 0; i < count; ++i)
        header += (i ? ",\"" : "\"") + name(i) + "\":{\"dtype\":\"F32\",\"shape\":[1]," +
                  "\"data_offsets\":[" + std::to_string(4 * i) + "," + std::to_string(4 * i + 4) +
                  "]}";
    header += extra + "}";
    header.resize((header.size() + 7) / 8 * 8, ' ');
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t n = header.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(header.data(), std::streamsize(header.size()));
    for (std::size_t i = 0; i < count; ++i) {
        const float v = float(i);
        out.write(reinterpret_cast<const char*>(&v), 4);
    }
}

}  // namespace many_tensors
