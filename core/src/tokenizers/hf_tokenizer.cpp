// AttnScope core — encoding, decoding and labels of a tokenizer.json tokenizer.
// GPL-3.0-or-later.
#include "attn/tokenizers/hf_tokenizer.hpp"

#include <limits>

#include "../util/utf8.hpp"
#include "attn/util/error.hpp"
#include "attn/util/utf8_check.hpp"
#include "tokenizer_data.hpp"
#include "unicode.hpp"

namespace attn::tok {

namespace {

/// Whether S is complete, valid UTF-8 (ICU's decoder gives U+FFFD for each bad sequence).
bool complete_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t b = i;
        if (detail::next_cp(s, i) == 0xFFFD && s.substr(b, i - b) != "\xEF\xBF\xBD") return false;
    }
    return true;
}

}  // namespace

std::vector<std::int32_t> HfTokenizer::encode_all(std::string_view text) const {
    const HfTokenizerData& d = *d_;
    std::vector<std::int32_t> ids;
    const auto run = [&](std::string s, bool first) {
        std::vector<detail::Piece> pieces{{std::move(s), first}};
        if (d.pre_tokenizer) d.pre_tokenizer->apply(pieces);
        for (const detail::Piece& p : pieces)
            if (!p.text.empty()) d.model->tokenize(p.text, ids);
    };
    // Added tokens written as they are, then the rest normalized and searched for the added
    // tokens that match normalized text (the tokenizers library's extract_and_normalize).
    for (const detail::Segment& raw : d.raw_added.split(text)) {
        if (raw.id >= 0) {
            ids.push_back(raw.id);
            continue;
        }
        if (raw.end == raw.begin) continue;
        std::string norm(text.substr(raw.begin, raw.end - raw.begin));
        if (d.normalizer) norm = d.normalizer->normalize(std::move(norm));
        for (const detail::Segment& seg : d.normalized_added.split(norm)) {
            if (seg.id >= 0)
                ids.push_back(seg.id);
            else if (seg.end > seg.begin)
                run(norm.substr(seg.begin, seg.end - seg.begin), raw.begin == 0 && seg.begin == 0);
        }
    }
    if (d.post_processor) d.post_processor->process(ids);
    return ids;
}

std::vector<std::int32_t> HfTokenizer::encode(std::string_view text) const {
    return encode(text, std::numeric_limits<std::size_t>::max(), nullptr);
}

std::vector<std::int32_t> HfTokenizer::encode(std::string_view text, std::size_t limit,
                                              bool* more) const {
    try {
        check_utf8(text);
    } catch (const FormatError& e) {
        throw ArgumentError(e.what());
    }
    // A long text is encoded a growing prefix at a time, cut before a space: what a cut changes
    // is the last few tokens before it (and the end's special tokens), so ids well clear of the
    // cut are final.
    constexpr std::size_t kMargin = 64;
    std::size_t prefix = limit > (std::size_t(1) << 40)
                             ? text.size()
                             : std::max<std::size_t>(4096, 16 * (limit + kMargin));
    std::vector<std::int32_t> ids;
    for (;;) {
        std::size_t cut = text.size();
        if (prefix < text.size()) {
            cut = text.find_first_of(" \n", prefix);
            if (cut == std::string_view::npos || cut > prefix + 4096) {
                cut = prefix;  // no space near: a character boundary
                while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
                    ++cut;
            }
        }
        try {
            ids = encode_all(text.substr(0, cut));
        } catch (const ArgumentError& e) {  // a regex that cannot be matched: name the file
            throw ArgumentError(d_->name + ": " + e.what());
        }
        if (cut >= text.size() || ids.size() >= limit + kMargin) break;
        prefix *= 4;
    }
    if (more) *more = ids.size() > limit;
    if (ids.size() > limit) ids.resize(limit);
    return ids;
}

namespace {

void check_not_negative(std::int32_t id) {
    if (id < 0) throw ArgumentError("token id " + std::to_string(id) + " is negative");
}

/// TOKENS (a run of known ids' strings) through the decoder, appended to OUT.
void decode_run(const HfTokenizerData& d, std::vector<std::string>& tokens, std::string& out) {
    if (tokens.empty()) return;
    if (d.decoder) {
        d.decoder->decode_chain(tokens, false);
        for (const std::string& t : tokens)
            out += t;
    } else {
        for (std::size_t i = 0; i < tokens.size(); ++i)
            out += (i || !out.empty() ? " " : "") + tokens[i];
    }
    tokens.clear();
}

}  // namespace

std::string HfTokenizer::decode(const std::vector<std::int32_t>& ids) const {
    const HfTokenizerData& d = *d_;
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    std::string out;
    for (const std::int32_t id : ids) {
        check_not_negative(id);
        if (std::size_t(id) < d.id_to_token.size()) {
            tokens.push_back(d.id_to_token[std::size_t(id)]);
            continue;
        }
        // A model's padding row: no token, so the decoder (whose alphabet it is not) skips it.
        decode_run(d, tokens, out);
        out += model::unknown_token_text(id);
    }
    decode_run(d, tokens, out);
    return attn::detail::repair_utf8(out);
}

namespace {

/// A token's text through the decoder as a label, bytes not yet repaired.
std::string raw_label(const HfTokenizerData& d, std::int32_t id) {
    check_not_negative(id);
    if (std::size_t(id) >= d.id_to_token.size()) return model::unknown_token_text(id);
    const std::string& token = d.id_to_token[std::size_t(id)];
    if (d.special[std::size_t(id)] || !d.decoder) return token;
    std::vector<std::string> tokens{token};
    d.decoder->decode_chain(tokens, true);
    std::string out;
    for (const std::string& t : tokens)
        out += t;
    return out;
}

}  // namespace

std::string HfTokenizer::token_text(std::int32_t id) const {
    const std::string raw = raw_label(*d_, id);
    if (std::size_t(id) >= d_->id_to_token.size()) return raw;
    const std::string& token = d_->id_to_token[std::size_t(id)];
    if (d_->special[std::size_t(id)]) return token;
    if (const int b = detail::fallback_byte(token); b >= 0)
        return b >= 0x20 && b < 0x7F ? std::string(1, char(b)) : token;
    return attn::detail::readable_token_bytes(raw);
}

bool HfTokenizer::is_special(std::int32_t id) const {
    return id >= 0 && std::size_t(id) < d_->special.size() && d_->special[std::size_t(id)];
}

std::optional<std::int32_t> HfTokenizer::token_id(std::string_view token) const {
    const std::string key(token);
    if (const auto it = d_->added_ids.find(key); it != d_->added_ids.end()) return it->second;
    const auto& vocab = d_->model->vocab();
    if (const auto it = vocab.find(key); it != vocab.end()) return it->second;
    return std::nullopt;
}

std::size_t HfTokenizer::vocab_size() const {
    return d_->id_to_token.size();
}

std::vector<TokenLabel> HfTokenizer::display_labels(const std::vector<std::int32_t>& ids) const {
    std::vector<TokenLabel> out;
    out.reserve(ids.size());
    std::vector<std::string> raw;
    raw.reserve(ids.size());
    for (const std::int32_t id : ids)
        raw.push_back(raw_label(*d_, id));
    for (std::size_t i = 0; i < ids.size();) {
        if (is_special(ids[i])) {
            out.push_back({raw[i], true, false});
            ++i;
            continue;
        }
        // A token that is not whole UTF-8 joins the following byte pieces (at most 8, the
        // longest a broken character can take) until together they are.
        std::size_t n = 0;
        if (!complete_utf8(raw[i])) {
            std::string joined = raw[i];
            for (std::size_t k = i + 1; k < ids.size() && k < i + 8 && !is_special(ids[k]); ++k) {
                joined += raw[k];
                if (complete_utf8(joined)) {
                    n = k - i + 1;
                    out.push_back({attn::detail::readable_token_bytes(joined), false, false});
                    break;
                }
            }
        }
        if (n == 0) {
            out.push_back({token_text(ids[i]), false, false});
            n = 1;
        }
        for (std::size_t k = 1; k < n; ++k)
            out.push_back({"", false, true});
        i += n;
    }
    return out;
}

std::vector<std::string> HfTokenizer::display_tokens(const std::vector<std::int32_t>& ids) const {
    std::vector<std::string> out;
    for (TokenLabel& l : display_labels(ids))
        out.push_back(std::move(l.text));
    return out;
}

}  // namespace attn::tok
