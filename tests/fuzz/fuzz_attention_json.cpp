// libFuzzer harness: BertViz (list and filter-keyed) and CircuitsVis JSON payloads.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/io/json/attention_json.hpp"
#include "attn/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)attn::io::parse_attention_json(
            std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    } catch (const attn::Error&) {
    }
    return 0;
}
