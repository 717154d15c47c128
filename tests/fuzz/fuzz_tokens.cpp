// libFuzzer harness: token text files and CSV embeddings.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/io/json/tokens.hpp"
#include "attn/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        (void)attn::io::parse_token_text(text, "fuzz.txt");
    } catch (const attn::Error&) {
    }
    try {
        (void)attn::io::parse_embeddings_csv(text, "fuzz.csv");
    } catch (const attn::Error&) {
    }
    return 0;
}
