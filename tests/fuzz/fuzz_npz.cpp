// libFuzzer harness: .npz archives (libzip) holding attention, scores, tokens and d_k.
#include <cstddef>
#include <cstdint>
#include <span>

#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    try {
        (void)attn::io::parse_npz_attention(bytes, "fuzz.npz");
    } catch (const attn::Error&) {
    }
    try {
        (void)attn::io::parse_npz(bytes, "fuzz.npz");
    } catch (const attn::Error&) {
    }
    return 0;
}
