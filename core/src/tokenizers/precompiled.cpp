// AttnScope core — tokenizer.json's Precompiled normalizer: SentencePiece's precompiled_charsmap
// (a darts-clone double-array trie over UTF-8 bytes and a blob of NUL-ended replacements), run
// per grapheme as the tokenizers library's spm_precompiled does. GPL-3.0-or-later.
#include <unicode/brkiter.h>
#include <unicode/utext.h>

#include <memory>
#include <optional>

#include "attn/util/error.hpp"
#include "parts.hpp"
#include "unicode.hpp"

namespace attn::tok::detail {

namespace {

/// Standard base64 with its padding, or nullopt for anything else.
std::optional<std::string> base64_decode(std::string_view s) {
    const auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    if (s.size() % 4 != 0) return std::nullopt;
    std::string out;
    out.reserve(s.size() / 4 * 3);
    for (std::size_t i = 0; i < s.size(); i += 4) {
        const bool last = i + 4 == s.size();
        const int pad = last ? (s[i + 3] == '=') + (s[i + 2] == '=' && s[i + 3] == '=') : 0;
        std::uint32_t group = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const int v = k >= 4 - std::size_t(pad) ? 0 : value(s[i + k]);
            if (v < 0) return std::nullopt;
            group = (group << 6) | std::uint32_t(v);
        }
        out += char(group >> 16);
        if (pad < 2) out += char((group >> 8) & 0xFF);
        if (pad < 1) out += char(group & 0xFF);
    }
    return out;
}

std::uint32_t read_le32(std::string_view s, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k)
        v |= std::uint32_t(static_cast<unsigned char>(s[at + k])) << (8 * k);
    return v;
}

class PrecompiledNorm final : public Normalizer {
  public:
    PrecompiledNorm(std::vector<std::uint32_t> units, std::string replacements)
        : units_(std::move(units)), replacements_(std::move(replacements)) {}

    std::string normalize(std::string s) const override {
        std::string out;
        out.reserve(s.size());
        const std::vector<std::size_t> cuts = graphemes(s);
        for (std::size_t g = 0; g + 1 < cuts.size(); ++g) {
            const std::string_view grapheme(s.data() + cuts[g], cuts[g + 1] - cuts[g]);
            // The library's rule, SentencePiece's too: a short grapheme is looked up whole (its
            // shortest matching prefix replaces all of it), else each character alone.
            if (grapheme.size() < 6)
                if (const auto norm = transform(grapheme)) {
                    out += *norm;
                    continue;
                }
            for (std::size_t i = 0; i < grapheme.size();) {
                const std::size_t b = i;
                next_cp(grapheme, i);
                const std::string_view ch = grapheme.substr(b, i - b);
                const auto norm = transform(ch);
                out += norm ? *norm : ch;
            }
        }
        return out;
    }

  private:
    /// The replacement of KEY's shortest prefix in the trie (stopping at a NUL byte), or nullopt.
    /// A unit or offset outside the arrays (a hostile map) ends the search as a miss.
    std::optional<std::string_view> transform(std::string_view key) const {
        const auto unit = [&](std::uint64_t pos) -> std::optional<std::uint64_t> {
            if (pos >= units_.size()) return std::nullopt;
            return units_[std::size_t(pos)];
        };
        const auto offset = [](std::uint64_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); };
        std::uint64_t pos = 0;
        auto u = unit(pos);
        if (!u) return std::nullopt;
        pos ^= offset(*u);
        for (const unsigned char c : key) {
            if (c == 0) break;
            pos ^= c;
            u = unit(pos);
            if (!u || (*u & ((1u << 31) | 0xFFu)) != c) return std::nullopt;
            pos ^= offset(*u);
            if ((*u >> 8) & 1) {  // a leaf: its value is the replacement's offset
                const auto leaf = unit(pos);
                if (!leaf) return std::nullopt;
                const std::size_t at = std::size_t(*leaf & ((1u << 31) - 1));
                if (at > replacements_.size() ||
                    (at < replacements_.size() &&
                     (static_cast<unsigned char>(replacements_[at]) & 0xC0) == 0x80))
                    return std::nullopt;  // not the start of a character of the blob
                std::size_t end = replacements_.find('\0', at);
                if (end == std::string::npos) end = replacements_.size();
                return std::string_view(replacements_).substr(at, end - at);
            }
        }
        return std::nullopt;
    }

    /// The extended grapheme clusters' boundaries of S (valid UTF-8), from 0 to its size.
    static std::vector<std::size_t> graphemes(const std::string& s) {
        std::vector<std::size_t> cuts{0};
        UErrorCode err = U_ZERO_ERROR;
        UText* text = utext_openUTF8(nullptr, s.data(), std::int64_t(s.size()), &err);
        const std::unique_ptr<UText, UText* (*)(UText*)> held(text, utext_close);
        std::unique_ptr<icu::BreakIterator> it(
            icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), err));
        if (U_SUCCESS(err)) it->setText(text, err);
        if (U_FAILURE(err)) {  // no segmentation to be had: each character on its own
            for (std::size_t i = 0; i < s.size();) {
                next_cp(s, i);
                cuts.push_back(i);
            }
            return cuts;
        }
        for (std::int32_t b = it->next(); b != icu::BreakIterator::DONE; b = it->next())
            cuts.push_back(std::size_t(b));
        if (cuts.back() != s.size()) cuts.push_back(s.size());
        return cuts;
    }

    std::vector<std::uint32_t> units_;  // the double array
    std::string replacements_;          // NUL-ended replacement strings
};

}  // namespace

std::unique_ptr<Normalizer> make_precompiled(const Json& j, const Where& w) {
    const std::string b64 = need_string(j, "precompiled_charsmap", w);
    const Where mw = w.at("precompiled_charsmap");
    const std::optional<std::string> map = base64_decode(b64);
    if (!map) mw.fail("is not base64 (" + std::to_string(b64.size()) + " characters)");
    if (map->size() < 4)
        mw.fail("holds " + std::to_string(map->size()) + " bytes, fewer than its 4-byte header");
    const std::uint32_t trie_bytes = read_le32(*map, 0);
    if (trie_bytes == 0 || trie_bytes % 4 != 0 || std::uint64_t(trie_bytes) + 4 > map->size())
        mw.fail("declares a trie of " + std::to_string(trie_bytes) + " bytes in a map of " +
                std::to_string(map->size()) + " (it must be a positive multiple of 4 that fits)");
    std::vector<std::uint32_t> units(trie_bytes / 4);
    for (std::size_t i = 0; i < units.size(); ++i)
        units[i] = read_le32(*map, 4 + 4 * i);
    std::string replacements = map->substr(4 + trie_bytes);
    for (std::size_t i = 0; i < replacements.size();)
        if (const std::size_t b = i; next_cp(replacements, i) == 0xFFFD &&
                                     replacements.compare(b, i - b, "\xEF\xBF\xBD") != 0)
            mw.fail("has replacement text that is not UTF-8 (at byte " + std::to_string(b) +
                    " of " + std::to_string(replacements.size()) + ")");
    return std::make_unique<PrecompiledNorm>(std::move(units), std::move(replacements));
}

}  // namespace attn::tok::detail
