// libFuzzer harness: .npy parsing (header, every dtype, attention conversion, strings).
#include <cstddef>
#include <cstdint>
#include <span>

#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    try {
        const attn::io::NpyView view(bytes, "fuzz.npy");
        if (view.header().numeric())
            (void)view.to_floats(false);
        else
            (void)view.to_strings();
    } catch (const attn::Error&) {
    }
    try {
        (void)attn::io::parse_npy_attention(bytes, "fuzz.npy");
    } catch (const attn::Error&) {
    }
    return 0;
}
