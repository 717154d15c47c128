// AttnScope core — GPT-2's byte-level BPE tokenizer. GPL-3.0-or-later.
#include "attn/models/gpt2/bpe_tokenizer.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../../files/io_util.hpp"
#include "../../util/utf8.hpp"
#include "attn/util/error.hpp"
#include "attn/util/utf8_check.hpp"

namespace attn::gpt2 {

namespace {

// GPT-2's pre-tokenizer (openai/gpt-2 encoder.py). It needs Unicode classes and a look-ahead,
// which std::regex lacks: PCRE2 with UTF and UCP, so \s and \p{L} mean what Python's regex does.
constexpr const char* kPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

/// The compiled pattern, shared by every tokenizer and thread (matching only reads it).
const pcre2_code* pattern() {
    static const std::unique_ptr<pcre2_code, void (*)(pcre2_code*)> code = [] {
        int err = 0;
        PCRE2_SIZE at = 0;
        pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED,
                                      PCRE2_UTF | PCRE2_UCP, &err, &at, nullptr);
        if (!c)
            throw Error("GPT-2 pre-tokenizer pattern does not compile (PCRE2 error " +
                        std::to_string(err) + ")");
        pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);  // optional: falls back to the interpreter
        return std::unique_ptr<pcre2_code, void (*)(pcre2_code*)>(c, pcre2_code_free);
    }();
    return code.get();
}

std::string read_whole(const std::string& path, const char* what) {
    // Opened without blocking and refused unless a regular file (a FIFO would hang the start).
    const std::vector<std::byte> bytes =
        io::detail::read_whole_file(path, path + " (the " + what + ")");
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

/// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes
/// (controls, space, soft hyphen…) move to U+0100 onwards, so every token is visible text.
std::array<char32_t, 256> byte_symbols() {
    std::array<char32_t, 256> sym{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        sym[b] = printable ? char32_t(b) : next++;
    }
    return sym;
}

}  // namespace

BpeTokenizer BpeTokenizer::load(const std::string& vocab_path, const std::string& merges_path) {
    BpeTokenizer t;
    t.source_ = vocab_path;
    const std::array<char32_t, 256> sym = byte_symbols();
    for (int b = 0; b < 256; ++b) {
        detail::append_utf8(t.byte_to_symbol_[b], sym[b]);
        t.symbol_to_byte_[sym[b]] = std::uint8_t(b);
    }

    nlohmann::json vocab;
    try {
        vocab = nlohmann::json::parse(read_whole(vocab_path, "vocabulary"));
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(vocab_path + ": not a JSON vocabulary (" + e.what() + ")");
    }
    if (!vocab.is_object() || vocab.empty())
        throw FormatError(vocab_path + ": the vocabulary must be a non-empty {token: id} object");
    t.id_to_token_.assign(vocab.size(), {});
    for (const auto& [token, id] : vocab.items()) {
        if (!id.is_number_integer() || id.get<long long>() < 0 ||
            id.get<long long>() >= static_cast<long long>(vocab.size()))
            throw FormatError(vocab_path + ": token \"" + token + "\" has id " + id.dump() +
                              ", not one of 0.." + std::to_string(vocab.size() - 1));
        const std::vector<detail::CodePoint> symbols = detail::decode_utf8(token);
        t.longest_token_ = std::max(t.longest_token_, symbols.size());
        for (const detail::CodePoint& c : symbols)
            if (!t.symbol_to_byte_.contains(std::uint32_t(c.cp)))
                throw FormatError(vocab_path + ": token \"" + token +
                                  "\" has a character that stands for no byte (not a byte-level "
                                  "BPE vocabulary)");
        const auto i = id.get<std::int32_t>();
        if (!t.id_to_token_[i].empty())
            throw FormatError(vocab_path + ": id " + std::to_string(i) + " is given twice");
        t.id_to_token_[i] = token;
        t.token_to_id_.emplace(token, i);
    }

    std::istringstream merges(read_whole(merges_path, "merges"));
    std::string line;
    int rank = 0;
    for (int number = 1; std::getline(merges, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line.rfind("#version", 0) == 0) continue;
        const auto space = line.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string::npos)
            throw FormatError(merges_path + ": line " + std::to_string(number) +
                              " is not a merge \"left right\": \"" + line + "\"");
        t.ranks_.emplace(line, rank++);
    }
    if (rank == 0) throw FormatError(merges_path + ": no merges");
    return t;
}

std::vector<std::int32_t> BpeTokenizer::encode_piece(std::string_view piece) const {
    // The piece's bytes as symbols, then the lowest-ranked adjacent pair merged until none is.
    std::vector<std::string> word;
    for (unsigned char b : piece)
        word.push_back(byte_to_symbol_[b]);
    while (word.size() > 1) {
        int best = std::numeric_limits<int>::max();
        std::size_t at = 0;
        for (std::size_t i = 0; i + 1 < word.size(); ++i) {
            const auto r = ranks_.find(word[i] + ' ' + word[i + 1]);
            if (r != ranks_.end() && r->second < best) best = r->second, at = i;
        }
        if (best == std::numeric_limits<int>::max()) break;
        const std::string left = word[at], right = word[at + 1];
        std::vector<std::string> merged;
        merged.reserve(word.size());
        for (std::size_t i = 0; i < word.size(); ++i) {
            if (i + 1 < word.size() && word[i] == left && word[i + 1] == right) {
                merged.push_back(left + right);
                ++i;
            } else {
                merged.push_back(word[i]);
            }
        }
        word = std::move(merged);
    }
    std::vector<std::int32_t> ids;
    for (const std::string& s : word) {
        const auto it = token_to_id_.find(s);
        if (it == token_to_id_.end())
            throw FormatError("the vocabulary has no token \"" + s + "\" (vocab.json and " +
                              "merges.txt are not from the same model)");
        ids.push_back(it->second);
    }
    return ids;
}

std::vector<std::int32_t> BpeTokenizer::encode(std::string_view text) const {
    return encode(text, std::numeric_limits<std::size_t>::max(), nullptr);
}

std::vector<std::int32_t> BpeTokenizer::encode(std::string_view text, std::size_t limit,
                                               bool* more) const {
    try {
        check_utf8(text);  // no per-character allocation: the text may be long
    } catch (const FormatError& e) {
        throw ArgumentError(e.what());
    }
    if (more) *more = false;
    std::vector<std::int32_t> ids;
    // <|endoftext|> written in the text is the special token, never split (Hugging Face's
    // GPT2Tokenizer matches added tokens first); the text between is pre-tokenized piece by
    // piece, each on its own.
    constexpr std::string_view kEnd = "<|endoftext|>";
    const std::optional<std::int32_t> end_id = token_id(kEnd);
    for (std::size_t begin = 0; begin <= text.size();) {
        const std::size_t at = end_id ? text.find(kEnd, begin) : std::string_view::npos;
        const std::size_t stop = at == std::string_view::npos ? text.size() : at;
        if (!encode_text(text.substr(begin, stop - begin), limit, ids, more)) return ids;
        if (at == std::string_view::npos) break;
        if (ids.size() == limit) {
            if (more) *more = true;
            return ids;
        }
        ids.push_back(*end_id);
        begin = at + kEnd.size();
    }
    return ids;
}

bool BpeTokenizer::encode_text(std::string_view text, std::size_t limit,
                               std::vector<std::int32_t>& ids, bool* more) const {
    const pcre2_code* re = pattern();
    std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> match(
        pcre2_match_data_create_from_pattern(re, nullptr), pcre2_match_data_free);
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    PCRE2_SIZE offset = 0;
    while (offset < text.size()) {
        const std::size_t room = limit - ids.size();
        if (room == 0) {
            if (more) *more = true;
            return false;
        }
        int rc =
            pcre2_match(re, subject, text.size(), offset, PCRE2_NO_UTF_CHECK, match.get(), nullptr);
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT)  // a very long piece: the interpreter has room
            rc = pcre2_match(re, subject, text.size(), offset, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT,
                             match.get(), nullptr);
        // The last alternative, \s+, and the others cover every character: no match is the end.
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            PCRE2_UCHAR why[256];
            pcre2_get_error_message(rc, why, sizeof why);
            throw ArgumentError(source_ + ": GPT-2's pre-tokenizer pattern cannot be matched on " +
                                "this text (PCRE2: " + reinterpret_cast<const char*>(why) +
                                "); split the text into shorter lines");
        }
        const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match.get());
        if (span[1] == span[0]) break;
        std::string_view piece = text.substr(span[0], span[1] - span[0]);
        // A token spans at most longest_token_ bytes, so a piece longer than room + 1 tokens
        // can span has too many: only that much of it is merged.
        const bool cut = piece.size() / longest_token_ > room;
        if (cut) piece = piece.substr(0, (room + 1) * longest_token_);
        const auto tokens = encode_piece(piece);
        if (cut || tokens.size() > room) {
            ids.insert(ids.end(), tokens.begin(), tokens.begin() + std::ptrdiff_t(room));
            if (more) *more = true;
            return false;
        }
        ids.insert(ids.end(), tokens.begin(), tokens.end());
        offset = span[1];
    }
    return true;
}

namespace bpe_detail {

/// The bytes IDS stand for, not yet repaired: a label names broken bytes, a text repairs them.
std::string bytes_of(const std::vector<std::string>& id_to_token,
                     const std::unordered_map<std::uint32_t, std::uint8_t>& symbol_to_byte,
                     const std::vector<std::int32_t>& ids) {
    std::string bytes;
    for (const std::int32_t id : ids) {
        if (id < 0) throw ArgumentError("token id " + std::to_string(id) + " is negative");
        if (static_cast<std::size_t>(id) >= id_to_token.size()) {
            bytes += model::unknown_token_text(id);  // a model's padding row
            continue;
        }
        for (const detail::CodePoint& c : detail::decode_utf8(id_to_token[std::size_t(id)]))
            bytes += char(symbol_to_byte.at(std::uint32_t(c.cp)));
    }
    return bytes;
}

}  // namespace bpe_detail

std::string BpeTokenizer::decode(const std::vector<std::int32_t>& ids) const {
    return detail::repair_utf8(bpe_detail::bytes_of(id_to_token_, symbol_to_byte_, ids));
}

/// Bytes that are no character alone and control characters show as "<0xC3>".
std::string BpeTokenizer::token_text(std::int32_t id) const {
    return detail::readable_token_bytes(bpe_detail::bytes_of(id_to_token_, symbol_to_byte_, {id}));
}

}  // namespace attn::gpt2

namespace attn::gpt2 {

bool BpeTokenizer::is_special(std::int32_t id) const {
    return id >= 0 && std::size_t(id) < id_to_token_.size() &&
           id_to_token_[std::size_t(id)] == "<|endoftext|>";
}

std::optional<std::int32_t> BpeTokenizer::token_id(std::string_view token) const {
    const auto it = token_to_id_.find(std::string(token));
    if (it == token_to_id_.end()) return std::nullopt;
    return it->second;
}

}  // namespace attn::gpt2
