// tokenizer.json's Unigram model and Precompiled normalizer on tiny files written here: Viterbi
// paths worked out by hand, and a precompiled_charsmap that SentencePiece compiled from six rules.
#include <gtest/gtest.h>

#include "attn/tokenizers/hf_tokenizer.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::tok::HfTokenizer;
using UnigramIds = std::vector<std::int32_t>;

std::string unigram_json(const std::string& vocab, const std::string& more = "") {
    return R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": )" + vocab + more + "}}";
}

TEST(Unigram, ViterbiPicksTheBestTotalScore) {
    // ▁ab: ▁+a+b = -1 - 2 - 2.5 = -5.5, ▁a+b = -2.2 - 2.5 = -4.7, ▁+ab = -1 - 3 = -4 (best).
    const auto t = HfTokenizer::parse(
        unigram_json(R"([["<unk>", 0], ["▁", -1], ["a", -2], ["b", -2.5], ["ab", -3],
                         ["▁a", -2.2]])"),
        "u.json");
    EXPECT_EQ(t.encode("▁ab"), (UnigramIds{1, 4}));
    // ▁a▁a: ▁a twice (-4.4) beats ▁+a twice (-6).
    EXPECT_EQ(t.encode("▁a▁a"), (UnigramIds{5, 5}));
    // The tokenizers library's own example: abcd (10), a (0), cd (1), then "xx" one unknown.
    const auto doc = HfTokenizer::parse(
        unigram_json(R"([["<unk>", 0], ["a", 0], ["b", 0], ["c", 0], ["d", 0], ["cd", 1],
                         ["ab", 2], ["abc", 5], ["abcd", 10]])"),
        "doc.json");
    EXPECT_EQ(doc.encode("abcdacdxx"), (UnigramIds{8, 1, 5, 0}));
}

TEST(Unigram, TiesKeepTheFirstPathFound) {
    // xxx: x+xx and xx+x both score -3; the path to 3 found first (from 1, by xx) stays.
    const auto t =
        HfTokenizer::parse(unigram_json(R"([["<unk>", 0], ["x", -1], ["xx", -2]])"), "tie.json");
    EXPECT_EQ(t.encode("xxx"), (UnigramIds{1, 2}));
    EXPECT_EQ(t.encode("xx"), (UnigramIds{2}));  // xx (-2) found before x+x (-2)
}

TEST(Unigram, UnknownCharactersCostTheLowestScoreLessTenAndFuse) {
    // q has a piece of its own: however low (-30), no unknown path is offered beside it.
    const auto t = HfTokenizer::parse(
        unigram_json(R"([["<unk>", 0], ["a", -1], ["q", -30], ["b", -4]])"), "unk.json");
    EXPECT_EQ(t.encode("aq"), (UnigramIds{1, 2}));
    // A run of characters without pieces is one fused unknown.
    EXPECT_EQ(t.encode("zé"), (UnigramIds{0}));
    EXPECT_EQ(t.encode("azzb"), (UnigramIds{1, 0, 3}));
    // The unknown costs min score (0) - 10 = -10: unknown z + b (12) = 2 loses to zb at 3 and
    // beats zb at 1.
    EXPECT_EQ(HfTokenizer::parse(unigram_json(R"([["<unk>", 0], ["b", 12], ["zb", 3]])"), "p.json")
                  .encode("zb"),
              (UnigramIds{2}));
    EXPECT_EQ(HfTokenizer::parse(unigram_json(R"([["<unk>", 0], ["b", 12], ["zb", 1]])"), "p.json")
                  .encode("zb"),
              (UnigramIds{0, 1}));
}

TEST(Unigram, ByteFallbackSpellsAFusedUnknownInBytes) {
    const auto t = HfTokenizer::parse(
        unigram_json(R"([["<unk>", 0], ["a", -1], ["<0x7A>", -5], ["<0xC3>", -5], ["<0xA9>", -5]])",
                     R"(, "byte_fallback": true)"),
        "bytes.json");
    EXPECT_EQ(t.encode("azé"), (UnigramIds{1, 2, 3, 4}));
    EXPECT_EQ(t.encode("aü"), (UnigramIds{1, 0}));  // <0xBC> is missing: unknown
}

TEST(Unigram, NoUnkIdRefusesAnUncoveredCharacter) {
    const auto t =
        HfTokenizer::parse(R"({"model": {"type": "Unigram", "vocab": [["a", -1]]}})", "nounk.json");
    EXPECT_EQ(t.encode("aa"), (UnigramIds{0, 0}));
    try {
        (void)t.encode("ab");
        ADD_FAILURE() << "encoded a character without a piece";
    } catch (const attn::ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("nounk.json: the Unigram model has no unk_id"),
                  std::string::npos)
            << e.what();
    }
}

// SentencePiece's compile of: Ａ→A, Ｂ→B, ①→1, e+U+0301→é, ™→TM, U+3000→space.
constexpr const char* kCharsmap =
    "AAQAAACQAQBlPAMAzAACAIEdAAALAACAhIQCAKIFAAAIAACAoAUAAAIAAICABAIAgB0AAAAAAIC89AIABAAAgAYAAICR4A"
    "IAoX0AAKJ1AAASAAAAFQAAABQAAAAXAAAAFgAAABkAAAAYAAAAGwAAABoAAAAdAAAAHAAAAB8AAAAeAAAAIQAAACAAAAAj"
    "AAAAIgAAACUAAAAkAAAAJwAAACYAAAApAAAAKAAAACsAAAAqAAAALQAAACwAAAAvAAAALgAAADEAAAAwAAAAMwAAADIAAA"
    "A1AAAANAAAADcAAAA2AAAAOQAAADgAAAA7AAAAOgAAAD0AAAA8AAAAPwAAAD4AAABBAAAAQAAAAEMAAABCAAAARQAAAEQA"
    "AABHAAAARgAAAEkAAABIAAAASwAAAEoAAABNAAAATAAAAE8AAABOAAAAUQAAAFAAAABTAAAAUgAAAFUAAABUAAAAVwAAAF"
    "YAAABZAAAAWAAAAFsAAABaAAAAXQAAAFwAAABfAAAAXgAAAGEAAABgAAAAYwAAAGIAAABlAAAAZAAAAGcAAABmAAAAaQAA"
    "AGgAAABrAAAAagAAAG0AAABsAAAAbwAAAG4AAABxAAAAcAAAAHMAAAByAAAAdQAAAHQAAAB3AAAAdgAAAHkAAAB4AAAAew"
    "AAAHoAAAB9AAAAfAAAAH8AAAB+"
    "AAAAgQAAAIAAAACDAAAAggAAAIUAAACEAAAA4hwAAOM0AACJAAAAiAAAAIsAAADv6AAAjQAAAIwAAACPAAAAjgAAAJEAAA"
    "CQAAAAkwAAAJIAAACVAAAAlAAAAJcAAACWAAAAmQAAAJgAAACbAAAAmgAAAJ0AAACcAAAAnwAAAJ4AAAChAAAAoAAAAKMA"
    "AACiAAAApQAAAKQAAACnAAAApgAAAKkAAACoAAAAqwAAAKoAAACtAAAArAAAAK8AAACuAAAAsQAAALAAAACzAAAAsgAAAL"
    "UAAAC0AAAAtwAAALYAAAC5AAAAuAAAALsAAAC6AAAAvQAAALwAAAC/"
    "AAAAvgAAAMEAAADAAAAAwwAAAMIAAADFAAAAxAAAAMcAAADGAAAAyQAAAMgAAADLAAAAygAAAM0AAADMAAAAzwAAAM4AAA"
    "DRAAAA0AAAANMAAADSAAAA1QAAANQAAADXAAAA1gAAANkAAADYAAAA2wAAANoAAADdAAAA3AAAAN8AAADeAAAA4QAAAOAA"
    "AADjAAAA4gAAAOUAAADkAAAA5wAAAOYAAADpAAAA6AAAAOsAAADqAAAA7QAAAOwAAADvAAAA7gAAAPEAAADwAAAA8wAAAP"
    "IAAAD1AAAA9AAAAPcAAAD2AAAA+QAAAPgAAAD7AAAA+gAAAP0AAAD8AAAA/wAAAP4AAAAgADEAQQBCAFRNAMOpAA==";

TEST(Precompiled, MapsByTheDoubleArrayPerGrapheme) {
    const std::string json = std::string(R"({"normalizer": {"type": "Precompiled",
        "precompiled_charsmap": ")") +
                             kCharsmap + R"("},
        "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["A", -1], ["B", -1],
          ["AB", -1.5], ["1", -2], ["TM", -2], ["é", -1], [" ", -1], ["e", -3], ["\u0301", -3],
          ["\u0323", -3]]}})";
    const auto t = HfTokenizer::parse(json, "pc.json");
    // ＡＢ → AB (-1.5 beats A+B), ① → 1, ™ → TM, U+3000 → space, e+◌́ → é.
    EXPECT_EQ(t.encode("ＡＢ ①™\u3000e\u0301"), (UnigramIds{3, 7, 4, 5, 7, 6}));
    EXPECT_EQ(t.encode("ＡＡＢＢ"), (UnigramIds{1, 3, 2}));
    // A grapheme under 6 bytes is replaced whole by its shortest mapped prefix: e◌́◌̣ → é (the
    // tokenizers library's rule); one of 6 bytes or more goes a character at a time.
    EXPECT_EQ(t.encode("e\u0301\u0323"), (UnigramIds{6}));
    EXPECT_EQ(t.encode("e\u0301\u0301\u0301"), (UnigramIds{8, 9, 9, 9}));
}

TEST(Precompiled, EveryCorruptedCharacterOfTheMapIsRefusedOrRunsSafely) {
    // Each base64 character of the map changed in turn (the trie's units, offsets and labels,
    // then the replacements): the file is refused with a FormatError, or it loads and encodes
    // text through whatever trie it now holds, its reads checked against the arrays.
    const std::string map = kCharsmap;
    std::size_t loaded = 0;
    for (std::size_t i = 0; i + 2 < map.size(); ++i) {
        std::string bad = map;
        bad[i] = bad[i] == 'z' ? '/' : 'z';
        const std::string json =
            R"({"normalizer": {"type": "Precompiled", "precompiled_charsmap": ")" + bad +
            R"("}, "model": {"type": "Unigram", "unk_id": 0,
            "vocab": [["<unk>", 0], ["A", -1], ["1", -2]]}})";
        try {
            const auto t = HfTokenizer::parse(json, "bad.json");
            ++loaded;
            const auto ids = t.encode("ＡＢ ①™\u3000e\u0301 zé 🙂");
            EXPECT_FALSE(ids.empty());
            (void)t.decode(ids);
        } catch (const attn::FormatError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("bad.json: ", 0), 0u) << e.what();
        }
    }
    EXPECT_GT(loaded, 1000u);  // most corruptions leave a map of the right shape
}

}  // namespace
