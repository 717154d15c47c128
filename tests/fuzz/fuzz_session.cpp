// libFuzzer harness: session files. Whatever parses must serialise, and serialising is a fixed
// point (parse ∘ write ∘ parse gives the same text), so saving never changes a session.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "attn/error.hpp"
#include "attn/io/session.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::io::Session s;
    try {
        s = attn::io::parse_session(std::string_view(reinterpret_cast<const char*>(data), size),
                                    "fuzz.attnscope");
    } catch (const attn::Error&) {
        return 0;
    }
    const std::string once = attn::io::session_to_json(s);
    const std::string twice =
        attn::io::session_to_json(attn::io::parse_session(once, "fuzz.attnscope"));
    if (once != twice) {
        std::fprintf(stderr, "session round trip is not a fixed point\n");
        std::abort();
    }
    return 0;
}
