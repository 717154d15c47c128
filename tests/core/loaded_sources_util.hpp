// Fixtures of the long-source tests, written byte by byte here (no NumPy needed): .npy files of
// a reference tensor in any float dtype, byte order and memory order; the streaming threshold
// and free disk space set for a scope.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/memory_budget.hpp"

namespace loaded_sources {

/// Element e (C-order flat index) of the reference tensor: eighths in [−6.25, 6.25], exact in
/// float16 (the same formula as make_long_fixtures.py).
inline double value(std::uint64_t e) {
    return static_cast<double>(static_cast<int>((e * 37 + 11) % 101) - 50) / 8.0;
}

/// long_tensor_cells set to `cells` (0: the default) for a scope, then put back.
struct Threshold {
    double before = attn::io::long_tensor_cells();
    explicit Threshold(double cells) { attn::io::set_long_tensor_cells(cells); }
    ~Threshold() { attn::io::set_long_tensor_cells(before); }
};

/// Every disk full (no byte free of 100 GB) for a scope.
struct NoDiskSpace {
    NoDiskSpace() {
        attn::set_disk_space_query([](const std::string&, attn::DiskSpace& out) {
            out = {0, 100e9};
            return true;
        });
    }
    ~NoDiskSpace() { attn::set_disk_space_query(nullptr); }
};

/// An IEEE half of a float that is exactly representable as one (the reference values).
inline std::uint16_t to_half(float f) {
    if (f == 0.f) return 0;
    const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
    const auto exp = static_cast<std::uint32_t>(static_cast<int>((b >> 23) & 0xFF) - 127 + 15);
    return static_cast<std::uint16_t>(((b >> 16) & 0x8000u) | (exp << 10) | ((b >> 13) & 0x3FFu));
}

/// A version 1.0 .npy of values (C order) of `shape`, stored as descr ("<f8", ">f2", …) in C or
/// Fortran order.
inline std::vector<std::byte> npy_of(const std::vector<double>& values,
                                     const std::vector<std::uint64_t>& shape,
                                     const std::string& descr, bool fortran) {
    std::string dims;
    for (const std::uint64_t d : shape)
        dims += std::to_string(d) + ", ";
    if (shape.size() > 1) dims.resize(dims.size() - 1);
    std::string header = "{'descr': '" + descr +
                         "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (" +
                         dims + "), }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    std::vector<std::byte> out(10 + header.size());
    std::memcpy(out.data(), "\x93NUMPY\x01\x00", 8);
    out[8] = std::byte(header.size() & 0xFF);
    out[9] = std::byte(header.size() >> 8);
    std::memcpy(out.data() + 10, header.data(), header.size());
    const std::size_t item = static_cast<std::size_t>(descr[2] - '0'), start = out.size();
    out.resize(start + values.size() * item);
    // Fortran order: element (i0, i1, …) at i0 + d0·(i1 + d1·(…)).
    std::vector<std::uint64_t> idx(shape.size(), 0);
    for (std::size_t e = 0; e < values.size(); ++e) {
        std::uint64_t at = e;
        if (fortran) {
            at = 0;
            for (std::size_t k = shape.size(); k-- > 0;)
                at = at * shape[k] + idx[k];
        }
        std::uint64_t bits = 0;
        if (item == 8) bits = std::bit_cast<std::uint64_t>(values[e]);
        if (item == 4) bits = std::bit_cast<std::uint32_t>(static_cast<float>(values[e]));
        if (item == 2) bits = to_half(static_cast<float>(values[e]));
        for (std::size_t b = 0; b < item; ++b) {
            const std::size_t shift = 8 * (descr[0] == '>' ? item - 1 - b : b);
            out[start + at * item + b] = std::byte((bits >> shift) & 0xFF);
        }
        for (std::size_t k = shape.size(); k-- > 0;) {  // next C-order index
            if (++idx[k] < shape[k]) break;
            idx[k] = 0;
        }
    }
    return out;
}

/// The number of elements of shape.
inline std::size_t count_of(const std::vector<std::uint64_t>& shape) {
    std::size_t n = 1;
    for (const std::uint64_t d : shape)
        n *= static_cast<std::size_t>(d);
    return n;
}

/// The reference tensor of `shape` as a .npy (see npy_of).
inline std::vector<std::byte> npy(const std::vector<std::uint64_t>& shape, const std::string& descr,
                                  bool fortran) {
    std::vector<double> v(count_of(shape));
    for (std::size_t e = 0; e < v.size(); ++e)
        v[e] = value(e);
    return npy_of(v, shape, descr, fortran);
}

/// Each row's softmax of the reference tensor, float32 C order (post-softmax weights).
inline std::vector<std::byte> softmax_npy(const std::vector<std::uint64_t>& shape) {
    std::vector<double> v(count_of(shape));
    const std::size_t nk = static_cast<std::size_t>(shape.back());
    for (std::size_t r = 0; r < v.size() / nk; ++r) {
        double sum = 0;
        for (std::size_t j = 0; j < nk; ++j)
            sum += std::exp(value(r * nk + j));
        for (std::size_t j = 0; j < nk; ++j)
            v[r * nk + j] = static_cast<float>(std::exp(value(r * nk + j)) / sum);
    }
    return npy_of(v, shape, "<f4", false);
}

/// Writes bytes to path.
inline void write_bytes(const std::string& path, const std::vector<std::byte>& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
}

}  // namespace loaded_sources
