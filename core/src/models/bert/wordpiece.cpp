// AttnScope core — BERT's WordPiece tokenizer. GPL-3.0-or-later.
#include "attn/models/bert/wordpiece.hpp"

#include <limits>

#include "../../files/io_util.hpp"
#include "../../util/utf8.hpp"
#include "attn/util/error.hpp"
#include "attn/util/utf8_check.hpp"

namespace attn::bert {

namespace detail {

bool is_space(char32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

/// Characters BERT's basic tokenizer makes words of their own: ASCII punctuation, the general
/// punctuation and CJK punctuation blocks, and CJK ideographs.
bool is_alone(char32_t c) {
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
           (c >= 123 && c <= 126) || (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E) ||
           (c >= 0x3000 && c <= 0x303F) || (c >= 0x4E00 && c <= 0x9FFF) ||
           (c >= 0x3400 && c <= 0x4DBF) || (c >= 0xF900 && c <= 0xFAFF);
}

bool is_control(char32_t c) {
    return (c < 0x20 && !is_space(c)) || c == 0x7F || c == 0xFFFD;
}

}  // namespace detail

WordPieceTokenizer WordPieceTokenizer::load(const std::string& path, bool lower) {
    const std::vector<std::byte> bytes = io::detail::read_whole_file(path, path);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    try {
        check_utf8(text);
    } catch (const Error& e) {
        throw FormatError(path + ": " + e.what());
    }
    WordPieceTokenizer t;
    t.lower_ = lower;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string token(text.substr(start, end - start));
        if (!token.empty() && token.back() == '\r') token.pop_back();
        start = end + 1;
        if (t.ids_.count(token))
            throw FormatError(path + ": token \"" + token + "\" appears twice (line " +
                              std::to_string(t.tokens_.size() + 1) + ")");
        t.ids_.emplace(token, std::int32_t(t.tokens_.size()));
        t.tokens_.push_back(std::move(token));
        if (t.tokens_.size() > std::size_t(std::numeric_limits<std::int32_t>::max() / 2))
            throw FormatError(path + ": more tokens than a vocabulary can hold");
    }
    if (t.tokens_.empty()) throw FormatError(path + ": empty vocabulary");
    for (const char* need : {"[CLS]", "[SEP]", "[UNK]"})
        if (!t.ids_.count(need)) throw FormatError(path + ": no " + need + " token");
    t.cls_ = t.ids_["[CLS]"], t.sep_ = t.ids_["[SEP]"], t.unk_ = t.ids_["[UNK]"];
    for (const char* s : {"[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]"})
        if (t.ids_.count(s)) t.specials_.emplace_back(s);
    return t;
}

void WordPieceTokenizer::encode_word(std::string_view word, std::vector<std::int32_t>& out) const {
    const std::vector<attn::detail::CodePoint> cps = attn::detail::decode_utf8(word);
    if (cps.size() > 100) {  // BERT's max_input_chars_per_word
        out.push_back(unk_);
        return;
    }
    std::vector<std::int32_t> pieces;
    std::size_t at = 0;  // code point index
    while (at < cps.size()) {
        std::size_t end = cps.size();
        std::int32_t found = -1;
        for (; end > at; --end) {
            const std::size_t b = cps[at].begin, e = cps[end - 1].begin + cps[end - 1].size;
            std::string piece(at > 0 ? "##" : "");  // (GCC 12 misreads "##" + string at -O3)
            piece.append(word.data() + b, e - b);
            if (auto it = ids_.find(piece); it != ids_.end()) {
                found = it->second;
                break;
            }
        }
        if (found < 0) {  // no piece fits: the whole word is unknown
            out.push_back(unk_);
            return;
        }
        pieces.push_back(found);
        at = end;
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
}

std::vector<std::int32_t> WordPieceTokenizer::encode(std::string_view text) const {
    return encode(text, std::numeric_limits<std::size_t>::max(), nullptr);
}

std::vector<std::int32_t> WordPieceTokenizer::encode(std::string_view text, std::size_t limit,
                                                     bool* more) const {
    check_utf8(text);
    std::vector<std::int32_t> ids{cls_};
    std::string word;
    const auto flush = [&] {
        if (!word.empty()) encode_word(word, ids);
        word.clear();
    };
    const std::vector<attn::detail::CodePoint> cps = attn::detail::decode_utf8(text);
    std::size_t c = 0;
    // [CLS] and the body until one more than LIMIT ids: enough to know whether there are more.
    while (c < cps.size() && ids.size() <= limit) {
        const attn::detail::CodePoint cp = cps[c];
        const std::string* special = nullptr;
        for (const std::string& s : specials_)
            if (text.substr(cp.begin, s.size()) == s) special = &s;
        if (special) {  // a special token written in the text is that token, not "[", "mask", "]"
            flush();
            ids.push_back(ids_.at(*special));
            const std::size_t end = cp.begin + special->size();
            while (c < cps.size() && cps[c].begin < end)
                ++c;
            continue;
        }
        ++c;
        const std::string_view bytes = text.substr(cp.begin, cp.size);
        if (detail::is_space(cp.cp)) {
            flush();
        } else if (detail::is_control(cp.cp)) {
            continue;
        } else if (detail::is_alone(cp.cp)) {
            flush();
            encode_word(bytes, ids);
        } else if (lower_ && cp.cp >= 'A' && cp.cp <= 'Z') {
            word += char(cp.cp - 'A' + 'a');
        } else {
            word += bytes;
        }
    }
    if (ids.size() <= limit) flush();
    ids.push_back(sep_);
    if (more) *more = ids.size() > limit;
    if (ids.size() > limit) ids.resize(limit);
    return ids;
}

std::string WordPieceTokenizer::decode(const std::vector<std::int32_t>& ids) const {
    std::string out;
    // The [CLS] and closing [SEP] that encode adds are not text: decoded text encodes back to
    // the same ids (fit_text relies on it).
    const std::optional<std::int32_t> pad = token_id("[PAD]");
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const std::int32_t id = ids[i];
        if (id == cls_ || (pad && id == *pad) || (id == sep_ && i + 1 == ids.size())) continue;
        const std::string t = token_text(id);
        if (t.rfind("##", 0) == 0) {
            out += t.substr(2);
        } else {
            if (!out.empty()) out += ' ';
            out += t;
        }
    }
    return attn::detail::repair_utf8(out);
}

std::string WordPieceTokenizer::token_text(std::int32_t id) const {
    if (id < 0 || std::size_t(id) >= tokens_.size()) return model::unknown_token_text(id);
    return tokens_[std::size_t(id)];
}

bool WordPieceTokenizer::is_special(std::int32_t id) const {
    const std::string t = token_text(id);
    return t.size() > 2 && t.front() == '[' && t.back() == ']';
}

std::optional<std::int32_t> WordPieceTokenizer::token_id(std::string_view token) const {
    if (auto it = ids_.find(std::string(token)); it != ids_.end()) return it->second;
    return std::nullopt;
}

}  // namespace attn::bert
