// AttnScope core — tokenizer.json decoders (ByteLevel, Metaspace, WordPiece, ByteFallback, Fuse,
// Strip, Replace, Sequence), as the tokenizers library's decode_chain runs them; text stays raw
// bytes until the caller repairs it, so labels can join the bytes of one character.
// GPL-3.0-or-later.
#include <array>

#include "parts.hpp"
#include "pattern.hpp"
#include "unicode.hpp"

namespace attn::tok::detail {

const std::vector<std::string>& byte_chars() {
    static const std::vector<std::string> chars = [] {
        std::vector<std::string> out(256);
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            put_cp(out[std::size_t(b)], printable ? char32_t(b) : next++);
        }
        return out;
    }();
    return chars;
}

int char_byte(char32_t cp) {
    static const std::array<int, 512> bytes = [] {
        std::array<int, 512> out;
        out.fill(-1);
        const std::vector<std::string>& chars = byte_chars();
        for (int b = 0; b < 256; ++b) {
            std::size_t i = 0;
            out[next_cp(chars[std::size_t(b)], i)] = b;
        }
        return out;
    }();
    return cp < 512 ? bytes[cp] : -1;
}

int fallback_byte(std::string_view t) {
    if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return -1;
    int v = 0;
    for (const char c : t.substr(3, 2)) {
        const int d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                             : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

namespace {

bool valid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t b = i;
        if (next_cp(s, i) == 0xFFFD && s.substr(b, i - b) != "\xEF\xBF\xBD") return false;
    }
    return true;
}

class ByteLevelDec final : public Decoder {
  public:
    void decode_chain(std::vector<std::string>& tokens, bool) const override {
        std::string bytes;
        for (const std::string& t : tokens) {
            std::string mapped;
            bool all = true;
            for (std::size_t i = 0; i < t.size() && all;) {
                const int b = char_byte(next_cp(t, i));
                if (b < 0) all = false;
                mapped += char(b);
            }
            bytes += all ? mapped : t;  // a token with other characters stays as it is
        }
        tokens.assign(1, std::move(bytes));
    }
};

class MetaspaceDec final : public Decoder {
  public:
    MetaspaceDec(std::string rep, bool prepend) : rep_(std::move(rep)), prepend_(prepend) {}
    void decode_chain(std::vector<std::string>& tokens, bool label) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const bool drop = i == 0 && prepend_ && !label;
            std::string out;
            for (const Span& s : Pattern::literal(rep_).spans(tokens[i]))
                out += s.match ? (drop ? "" : " ") : tokens[i].substr(s.begin, s.end - s.begin);
            tokens[i] = std::move(out);
        }
    }

  private:
    std::string rep_;
    bool prepend_;
};

void replace_all(std::string& s, std::string_view from, std::string_view to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

class WordPieceDec final : public Decoder {
  public:
    WordPieceDec(std::string prefix, bool cleanup)
        : prefix_(std::move(prefix)), cleanup_(cleanup) {}
    void decode_chain(std::vector<std::string>& tokens, bool label) const override {
        if (label) return;  // a label keeps BERT's "##" as readers of BERT know it
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            std::string& t = tokens[i];
            if (i != 0) t = t.rfind(prefix_, 0) == 0 ? t.substr(prefix_.size()) : " " + t;
            if (cleanup_)
                for (const auto& [from, to] : kCleanup)
                    replace_all(t, from, to);
        }
    }

  private:
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kCleanup{
        {{" .", "."},
         {" ?", "?"},
         {" !", "!"},
         {" ,", ","},
         {" ' ", "'"},
         {" n't", "n't"},
         {" 'm", "'m"},
         {" do not", " don't"},
         {" 's", "'s"},
         {" 've", "'ve"},
         {" 're", "'re"}}};
    std::string prefix_;
    bool cleanup_;
};

class ByteFallbackDec final : public Decoder {
  public:
    void decode_chain(std::vector<std::string>& tokens, bool label) const override {
        std::vector<std::string> out;
        std::string bytes;
        const auto flush = [&] {
            if (bytes.empty()) return;
            if (label || valid_utf8(bytes))
                out.push_back(bytes);
            else
                for (std::size_t k = 0; k < bytes.size(); ++k)
                    out.emplace_back("\xEF\xBF\xBD");
            bytes.clear();
        };
        for (std::string& t : tokens) {
            const int b = fallback_byte(t);
            if (b >= 0) {
                bytes += char(b);
                continue;
            }
            flush();
            out.push_back(std::move(t));
        }
        flush();
        tokens = std::move(out);
    }
};

class FuseDec final : public Decoder {
  public:
    void decode_chain(std::vector<std::string>& tokens, bool) const override {
        std::string all;
        for (const std::string& t : tokens)
            all += t;
        tokens.assign(1, std::move(all));
    }
};

class StripDec final : public Decoder {
  public:
    StripDec(char32_t c, std::size_t start, std::size_t stop) : c_(c), start_(start), stop_(stop) {}
    void decode_chain(std::vector<std::string>& tokens, bool label) const override {
        if (label) return;  // a label keeps its leading space
        for (std::string& t : tokens) {
            std::vector<std::pair<std::size_t, char32_t>> chars;
            for (std::size_t i = 0; i < t.size();) {
                const std::size_t b = i;
                chars.emplace_back(b, next_cp(t, i));
            }
            std::size_t cut = 0, stop = chars.size();
            for (std::size_t i = 0; i < std::min(start_, chars.size()) && chars[i].second == c_;
                 ++i)
                cut = i + 1;
            for (std::size_t i = 0; i < stop_ && i < chars.size(); ++i) {
                const std::size_t k = chars.size() - i - 1;
                if (chars[k].second != c_) break;
                stop = k;
            }
            if (stop < cut) stop = cut;
            const std::size_t b = cut < chars.size() ? chars[cut].first : t.size();
            const std::size_t e = stop < chars.size() ? chars[stop].first : t.size();
            t = t.substr(b, e - b);
        }
    }

  private:
    char32_t c_;
    std::size_t start_, stop_;
};

class ReplaceDec final : public Decoder {
  public:
    ReplaceDec(Pattern p, std::string content) : p_(std::move(p)), content_(std::move(content)) {}
    void decode_chain(std::vector<std::string>& tokens, bool) const override {
        for (std::string& t : tokens) {
            std::string out;
            for (const Span& s : p_.spans(t))
                out += s.match ? content_ : t.substr(s.begin, s.end - s.begin);
            t = std::move(out);
        }
    }

  private:
    Pattern p_;
    std::string content_;
};

class SequenceDec final : public Decoder {
  public:
    std::vector<std::unique_ptr<Decoder>> parts;
    void decode_chain(std::vector<std::string>& tokens, bool label) const override {
        for (const auto& p : parts)
            p->decode_chain(tokens, label);
    }
};

}  // namespace

std::unique_ptr<Decoder> make_decoder(const Json& j, const Where& w) {
    const std::string type = type_of(j, w);
    if (type == "ByteLevel") return std::make_unique<ByteLevelDec>();
    if (type == "Metaspace") {
        const std::string scheme = opt_string(j, "prepend_scheme", "always", w);
        const Json* add_prefix = opt(j, "add_prefix_space", w);
        const bool never = scheme == "never" ||
                           (add_prefix && add_prefix->is_boolean() && !add_prefix->get<bool>());
        return std::make_unique<MetaspaceDec>(need_char(j, "replacement", w), !never);
    }
    if (type == "WordPiece")
        return std::make_unique<WordPieceDec>(opt_string(j, "prefix", "##", w),
                                              opt_bool(j, "cleanup", true, w));
    if (type == "ByteFallback") return std::make_unique<ByteFallbackDec>();
    if (type == "Fuse") return std::make_unique<FuseDec>();
    if (type == "Strip") {
        const std::string c = need_char(j, "content", w);
        std::size_t i = 0;
        return std::make_unique<StripDec>(next_cp(c, i),
                                          std::size_t(need_int(j, "start", 0, kMaxId, w)),
                                          std::size_t(need_int(j, "stop", 0, kMaxId, w)));
    }
    if (type == "Replace")
        return std::make_unique<ReplaceDec>(
            Pattern::from_json(need(j, "pattern", w), w.at("pattern")),
            need_string(j, "content", w));
    if (type == "Sequence") {
        auto d = std::make_unique<SequenceDec>();
        const Json& list = need_array(j, "decoders", w);
        for (std::size_t i = 0; i < list.size(); ++i)
            d->parts.push_back(make_decoder(list[i], w.at("decoders").at(i)));
        return d;
    }
    unsupported(type, w);
}

}  // namespace attn::tok::detail
