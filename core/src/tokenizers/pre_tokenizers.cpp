// AttnScope core — tokenizer.json pre-tokenizers (ByteLevel, Split, Metaspace,
// BertPreTokenizer, Whitespace, WhitespaceSplit, Digits, Punctuation, Sequence), as the
// tokenizers library runs them. GPL-3.0-or-later.
#include "parts.hpp"
#include "pattern.hpp"
#include "unicode.hpp"

namespace attn::tok::detail {

namespace {

/// Each piece cut where SPLIT says; a part keeps "first" when it starts its first piece.
template <class Split>
void split_pieces(std::vector<Piece>& pieces, const Split& split) {
    std::vector<Piece> out;
    out.reserve(pieces.size());
    for (Piece& p : pieces)
        for (const auto& [b, e] : split(p.text))
            if (e > b) out.push_back({p.text.substr(b, e - b), p.first && b == 0});
    pieces = std::move(out);
}

void split_by(std::vector<Piece>& pieces, const Pattern& pattern, Behavior behavior,
              bool invert = false) {
    split_pieces(pieces, [&](const std::string& s) {
        return split_spans(pattern.spans(s), behavior, invert);
    });
}

bool is_bert_punctuation(char32_t c) {
    return is_punctuation(c);
}

class ByteLevelPre final : public PreTokenizer {
  public:
    bool add_prefix_space = true, use_regex = true;
    void apply(std::vector<Piece>& pieces) const override {
        // GPT-2's pattern (the tokenizers library's ByteLevel pre-tokenizer).
        static const Pattern gpt2 = Pattern::regex(
            R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)",
            Where{nullptr, ""});
        if (add_prefix_space)
            for (Piece& p : pieces)
                if (p.text.empty() || p.text[0] != ' ') p.text.insert(0, 1, ' ');
        if (use_regex) split_by(pieces, gpt2, Behavior::Isolated);
        const std::vector<std::string>& chars = byte_chars();
        for (Piece& p : pieces) {
            std::string mapped;
            mapped.reserve(p.text.size() * 2);
            for (const unsigned char b : p.text)
                mapped += chars[b];
            p.text = std::move(mapped);
        }
    }
};

class SplitPre final : public PreTokenizer {
  public:
    SplitPre(Pattern p, Behavior b, bool invert) : pattern_(std::move(p)), b_(b), invert_(invert) {}
    void apply(std::vector<Piece>& pieces) const override {
        split_by(pieces, pattern_, b_, invert_);
    }

  private:
    Pattern pattern_;
    Behavior b_;
    bool invert_;
};

class MetaspacePre final : public PreTokenizer {
  public:
    enum class Scheme { Always, First, Never };
    MetaspacePre(std::string replacement, Scheme scheme, bool split)
        : rep_(std::move(replacement)),
          scheme_(scheme),
          split_(split),
          rep_pattern_(Pattern::literal(rep_)),
          space_(Pattern::literal(" ")) {}
    void apply(std::vector<Piece>& pieces) const override {
        for (Piece& p : pieces) {
            std::string s;
            for (const Span& sp : space_.spans(p.text))
                s += sp.match ? rep_ : p.text.substr(sp.begin, sp.end - sp.begin);
            const bool starts = s.rfind(rep_, 0) == 0;
            if (!starts && (scheme_ == Scheme::Always || (scheme_ == Scheme::First && p.first)))
                s.insert(0, rep_);
            p.text = std::move(s);
        }
        if (split_) split_by(pieces, rep_pattern_, Behavior::MergedWithNext);
    }

  private:
    std::string rep_;
    Scheme scheme_;
    bool split_;
    Pattern rep_pattern_, space_;
};

class BertPre final : public PreTokenizer {
  public:
    void apply(std::vector<Piece>& pieces) const override {
        static const Pattern space = Pattern::predicate(is_white_space);
        static const Pattern punct = Pattern::predicate(is_bert_punctuation);
        split_by(pieces, space, Behavior::Removed);
        split_by(pieces, punct, Behavior::Isolated);
    }
};

class WhitespacePre final : public PreTokenizer {
  public:
    void apply(std::vector<Piece>& pieces) const override {
        // \w+|[^\w\s]+ with \w as the Rust regex crate's Unicode word class.
        static const Pattern words =
            Pattern::regex(R"([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}]+|)"
                           R"([^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}\s]+)",
                           Where{nullptr, ""});
        split_by(pieces, words, Behavior::Removed, true);
    }
};

class WhitespaceSplitPre final : public PreTokenizer {
  public:
    void apply(std::vector<Piece>& pieces) const override {
        static const Pattern space = Pattern::predicate(is_white_space);
        split_by(pieces, space, Behavior::Removed);
    }
};

class PredicatePre final : public PreTokenizer {
  public:
    PredicatePre(bool (*pred)(char32_t), Behavior b) : pattern_(Pattern::predicate(pred)), b_(b) {}
    void apply(std::vector<Piece>& pieces) const override { split_by(pieces, pattern_, b_); }

  private:
    Pattern pattern_;
    Behavior b_;
};

class SequencePre final : public PreTokenizer {
  public:
    std::vector<std::unique_ptr<PreTokenizer>> parts;
    void apply(std::vector<Piece>& pieces) const override {
        for (const auto& p : parts)
            p->apply(pieces);
    }
};

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const Json& j, const Where& w) {
    const std::string type = type_of(j, w);
    if (type == "ByteLevel") {
        auto p = std::make_unique<ByteLevelPre>();
        p->add_prefix_space = opt_bool(j, "add_prefix_space", true, w);
        p->use_regex = opt_bool(j, "use_regex", true, w);
        return p;
    }
    if (type == "Split") {
        const Json* invert = opt(j, "invert", w);
        if (invert && !invert->is_boolean()) w.at("invert").fail("must be true or false");
        return std::make_unique<SplitPre>(
            Pattern::from_json(need(j, "pattern", w), w.at("pattern")),
            behavior_from_json(need(j, "behavior", w), w.at("behavior")),
            invert && invert->get<bool>());
    }
    if (type == "Metaspace") {
        const std::string rep = need_char(j, "replacement", w);
        std::string scheme = opt_string(j, "prepend_scheme", "always", w);
        const Json* add_prefix = opt(j, "add_prefix_space", w);
        if (add_prefix && add_prefix->is_boolean() && !add_prefix->get<bool>()) scheme = "never";
        MetaspacePre::Scheme s = MetaspacePre::Scheme::Always;
        if (scheme == "first")
            s = MetaspacePre::Scheme::First;
        else if (scheme == "never")
            s = MetaspacePre::Scheme::Never;
        else if (scheme != "always")
            w.at("prepend_scheme").fail("is \"" + scheme + "\", not always, first or never");
        return std::make_unique<MetaspacePre>(rep, s, opt_bool(j, "split", true, w));
    }
    if (type == "BertPreTokenizer") return std::make_unique<BertPre>();
    if (type == "Whitespace") return std::make_unique<WhitespacePre>();
    if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplitPre>();
    if (type == "Digits")
        return std::make_unique<PredicatePre>(is_numeric, opt_bool(j, "individual_digits", false, w)
                                                              ? Behavior::Isolated
                                                              : Behavior::Contiguous);
    if (type == "Punctuation") {
        const Json* b = opt(j, "behavior", w);
        return std::make_unique<PredicatePre>(
            is_punctuation, b ? behavior_from_json(*b, w.at("behavior")) : Behavior::Isolated);
    }
    if (type == "Sequence") {
        auto p = std::make_unique<SequencePre>();
        const Json& list = need_array(j, "pretokenizers", w);
        for (std::size_t i = 0; i < list.size(); ++i)
            p->parts.push_back(make_pre_tokenizer(list[i], w.at("pretokenizers").at(i)));
        return p;
    }
    unsupported(type, w);
}

}  // namespace attn::tok::detail
