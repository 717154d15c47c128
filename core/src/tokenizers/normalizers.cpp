// AttnScope core — tokenizer.json normalizers (NFC/NFD/NFKC/NFKD, Lowercase, BertNormalizer,
// Replace, Prepend, Strip, StripAccents, Precompiled, Sequence), as the tokenizers library runs
// them. GPL-3.0-or-later.
#include "attn/util/memory_budget.hpp"
#include "parts.hpp"
#include "pattern.hpp"
#include "unicode.hpp"

namespace attn::tok::detail {

namespace {

class UnicodeForm final : public Normalizer {
  public:
    explicit UnicodeForm(NormForm f) : form_(f) {}
    std::string normalize(std::string s) const override { return detail::normalize(s, form_); }

  private:
    NormForm form_;
};

class LowercaseNorm final : public Normalizer {
  public:
    std::string normalize(std::string s) const override { return lowercase(s); }
};

/// Keeps the characters KEEP accepts.
template <class Keep>
std::string filter_chars(std::string_view s, Keep keep) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t b = i;
        if (keep(next_cp(s, i))) out.append(s.substr(b, i - b));
    }
    return out;
}

class StripAccentsNorm final : public Normalizer {
  public:
    std::string normalize(std::string s) const override {
        return filter_chars(s, [](char32_t c) { return !is_mark(c); });
    }
};

class BertNorm final : public Normalizer {
  public:
    bool clean_text = true, chinese = true, strip_accents = false, lower = true;

    std::string normalize(std::string s) const override {
        std::string out;
        if (clean_text) {
            out.reserve(s.size());
            for (std::size_t i = 0; i < s.size();) {
                const std::size_t b = i;
                const char32_t c = next_cp(s, i);
                const bool control = c != '\t' && c != '\n' && c != '\r' && is_other(c);
                if (c == 0 || c == 0xFFFD || control) continue;
                if (c == '\t' || c == '\n' || c == '\r' || is_white_space(c))
                    out += ' ';
                else
                    out.append(s, b, i - b);
            }
            s = std::move(out);
        }
        if (chinese) {
            out.clear();
            for (std::size_t i = 0; i < s.size();) {
                const std::size_t b = i;
                const char32_t c = next_cp(s, i);
                if (is_chinese_char(c)) out += ' ';
                out.append(s, b, i - b);
                if (is_chinese_char(c)) out += ' ';
            }
            s = std::move(out);
        }
        if (strip_accents)
            s = filter_chars(detail::normalize(s, NormForm::NFD),
                             [](char32_t c) { return !is_mark_nonspacing(c); });
        if (lower) s = lowercase(s);
        return s;
    }
};

class ReplaceNorm final : public Normalizer {
  public:
    ReplaceNorm(Pattern p, std::string content, const Where& w)
        : pattern_(std::move(p)), content_(std::move(content)), where_(*w.file + ": " + w.path) {}
    std::string normalize(std::string s) const override {
        // A content longer than what it replaces multiplies the text, and a sequence of them
        // multiplies it again: the matches (at most one span per byte and one between) and the
        // result are sized against the budget before they are built.
        const std::string from = " (Replace), from " + format_bytes(double(s.size())) + " of text";
        const std::string way_out =
            "the normalizer multiplies the text: give a shorter text or fix the normalizer";
        require_memory((2 * double(s.size()) + 1) * double(sizeof(Span)),
                       where_ + from + ": its matches", way_out);
        const std::vector<Span> spans = pattern_.spans(s);
        double bytes = 0;
        for (const Span& sp : spans)
            bytes += sp.match ? double(content_.size()) : double(sp.end - sp.begin);
        require_memory(bytes, where_ + from + ": the normalised text", way_out);
        std::string out;
        out.reserve(static_cast<std::size_t>(bytes));
        for (const Span& sp : spans)
            if (sp.match)
                out += content_;
            else
                out.append(s, sp.begin, sp.end - sp.begin);
        return out;
    }

  private:
    Pattern pattern_;
    std::string content_;
    std::string where_;  ///< "FILE: normalizer.normalizers[2]", for the refusal
};

class PrependNorm final : public Normalizer {
  public:
    explicit PrependNorm(std::string p) : prepend_(std::move(p)) {}
    std::string normalize(std::string s) const override { return s.empty() ? s : prepend_ + s; }

  private:
    std::string prepend_;
};

class StripNorm final : public Normalizer {
  public:
    bool left = true, right = true;
    std::string normalize(std::string s) const override {
        std::size_t b = 0, e = s.size();
        if (left)
            for (std::size_t i = 0; i < s.size();) {
                if (!is_white_space(next_cp(s, i))) break;
                b = i;
            }
        if (right)
            while (e > b) {
                std::size_t start = e - 1;
                while (start > b && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80)
                    --start;
                std::size_t i = start;
                if (!is_white_space(next_cp(s, i))) break;
                e = start;
            }
        return s.substr(b, e - b);
    }
};

class SequenceNorm final : public Normalizer {
  public:
    std::vector<std::unique_ptr<Normalizer>> parts;
    std::string normalize(std::string s) const override {
        for (const auto& p : parts)
            s = p->normalize(std::move(s));
        return s;
    }
};

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const Json& j, const Where& w) {
    const std::string type = type_of(j, w);
    if (type == "NFC") return std::make_unique<UnicodeForm>(NormForm::NFC);
    if (type == "NFD") return std::make_unique<UnicodeForm>(NormForm::NFD);
    if (type == "NFKC") return std::make_unique<UnicodeForm>(NormForm::NFKC);
    if (type == "NFKD") return std::make_unique<UnicodeForm>(NormForm::NFKD);
    if (type == "Lowercase") return std::make_unique<LowercaseNorm>();
    if (type == "StripAccents") return std::make_unique<StripAccentsNorm>();
    if (type == "BertNormalizer") {
        auto n = std::make_unique<BertNorm>();
        n->clean_text = opt_bool(j, "clean_text", true, w);
        n->chinese = opt_bool(j, "handle_chinese_chars", true, w);
        n->lower = opt_bool(j, "lowercase", true, w);
        n->strip_accents = opt_bool(j, "strip_accents", n->lower, w);  // null: as lowercase
        return n;
    }
    if (type == "Replace")
        return std::make_unique<ReplaceNorm>(
            Pattern::from_json(need(j, "pattern", w), w.at("pattern")),
            need_string(j, "content", w), w);
    if (type == "Precompiled") return make_precompiled(j, w);
    if (type == "Prepend") return std::make_unique<PrependNorm>(need_string(j, "prepend", w));
    if (type == "Strip") {
        auto n = std::make_unique<StripNorm>();
        n->left = opt_bool(j, "strip_left", true, w);
        n->right = opt_bool(j, "strip_right", true, w);
        return n;
    }
    if (type == "Sequence") {
        auto n = std::make_unique<SequenceNorm>();
        const Json& list = need_array(j, "normalizers", w);
        for (std::size_t i = 0; i < list.size(); ++i)
            n->parts.push_back(make_normalizer(list[i], w.at("normalizers").at(i)));
        return n;
    }
    unsupported(type, w);
}

}  // namespace attn::tok::detail
