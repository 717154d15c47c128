// A tokenizer.json that is not JSON is refused naming the real place: a file cut short says it
// ends after its N bytes (not "byte N + 1 of N"); an error inside says the byte, from 0, of the
// file's size (issue 37, item 16).
#include <gtest/gtest.h>

#include <string>

#include "attn/tokenizers/hf_tokenizer.hpp"
#include "attn/util/error.hpp"

namespace {

std::string refusal(const std::string& json) {
    try {
        (void)attn::tok::HfTokenizer::parse(json, "tokenizer.json");
    } catch (const attn::FormatError& e) {
        return e.what();
    }
    return "(parsed)";
}

TEST(TokenizerJsonPosition, TruncatedFileNamesItsSize) {
    std::string json = R"({"model": {"type": "BPE", "vocab": {)";
    while (json.size() < 300)
        json += R"("a": 1, )";
    json.resize(300);
    EXPECT_EQ(refusal(json),
              "tokenizer.json: not valid JSON (the file ends after its 300 bytes inside a value: "
              "truncated?)");
}

TEST(TokenizerJsonPosition, ErrorInsideNamesTheByteFromZero) {
    // The 'x' is byte 10 of 12.
    EXPECT_EQ(refusal(R"({"model": x})"),
              "tokenizer.json: not valid JSON (at byte 10 of 12, counted from 0)");
}

}  // namespace
