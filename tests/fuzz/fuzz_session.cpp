// libFuzzer harness: session files. Whatever parses must serialise, and serialising is a fixed
// point (parse ∘ write ∘ parse gives the same text), so saving never changes a session. The
// playground's part of "views" is parsed by core as well, under the same rule.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "attn/io/json/playground_json.hpp"
#include "attn/io/session/session.hpp"
#include "attn/util/error.hpp"

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
    const nlohmann::json views = nlohmann::json::parse(s.views, nullptr, false);
    if (!views.is_object() || !views.contains("playground")) return 0;
    attn::PlaygroundState p;
    try {
        p = attn::io::parse_playground(views["playground"].dump(), {}, "fuzz.attnscope");
    } catch (const attn::Error&) {
        return 0;
    }
    const std::string first = attn::io::playground_to_json(p);
    if (attn::io::playground_to_json(attn::io::parse_playground(first, {}, "fuzz")) != first) {
        std::fprintf(stderr, "playground round trip is not a fixed point\n");
        std::abort();
    }
    return 0;
}
