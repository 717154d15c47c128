// libFuzzer harness: tokenizer.json files, and encoding with what loads.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/tokenizers/hf_tokenizer.hpp"
#include "attn/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto tok = attn::tok::HfTokenizer::parse(text, "fuzz.json");
        const auto ids = tok.encode("Hello, wörld 123 🙂 <s> [MASK]");
        (void)tok.decode(ids);
        (void)tok.display_tokens(ids);
    } catch (const attn::Error&) {
    }
    return 0;
}
