// AttnScope core — literal, regex and character-class patterns for tokenizers.
// GPL-3.0-or-later.
#include "pattern.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "attn/util/error.hpp"
#include "unicode.hpp"

namespace attn::tok::detail {

Pattern Pattern::literal(std::string text) {
    if (text.empty()) return regex("", Where{nullptr, ""});
    Pattern p;
    p.kind_ = Kind::Literal;
    p.text_ = std::move(text);
    return p;
}

Pattern Pattern::regex(const std::string& regex, const Where& w) {
    int err = 0;
    PCRE2_SIZE at = 0;
    pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(regex.data()), regex.size(),
                                  PCRE2_UTF | PCRE2_UCP, &err, &at, nullptr);
    if (!c) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        w.fail("regex \"" + regex + "\" does not compile at offset " + std::to_string(at) + ": " +
               reinterpret_cast<const char*>(msg));
    }
    pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);  // optional: falls back to the interpreter
    Pattern p;
    p.kind_ = Kind::Regex;
    p.code_ = std::shared_ptr<pcre2_code>(c, pcre2_code_free);
    p.where_ = w.path;
    return p;
}

Pattern Pattern::predicate(bool (*pred)(char32_t)) {
    Pattern p;
    p.kind_ = Kind::Predicate;
    p.pred_ = pred;
    return p;
}

Pattern Pattern::from_json(const Json& v, const Where& w) {
    if (!v.is_object() || v.size() != 1)
        w.fail("must be {\"String\": …} or {\"Regex\": …}, not " + std::string(v.type_name()));
    if (v.contains("String")) {
        if (!v["String"].is_string()) w.at("String").fail("must be a string");
        return literal(v["String"].get<std::string>());
    }
    if (v.contains("Regex")) {
        if (!v["Regex"].is_string()) w.at("Regex").fail("must be a string");
        return regex(v["Regex"].get<std::string>(), w.at("Regex"));
    }
    w.fail("must be {\"String\": …} or {\"Regex\": …}, not \"" + v.begin().key() + "\"");
}

std::vector<Span> Pattern::spans(std::string_view s) const {
    std::vector<Span> out;
    if (s.empty()) return {{0, 0, false}};
    std::size_t prev = 0;
    const auto hit = [&](std::size_t b, std::size_t e) {
        if (prev != b) out.push_back({prev, b, false});
        out.push_back({b, e, true});
        prev = e;
    };
    if (kind_ == Kind::Literal) {
        for (std::size_t at = s.find(text_); at != std::string_view::npos;
             at = s.find(text_, at + text_.size()))
            hit(at, at + text_.size());
    } else if (kind_ == Kind::Predicate) {
        for (std::size_t i = 0; i < s.size();) {
            const std::size_t b = i;
            if (pred_(next_cp(s, i))) hit(b, i);
        }
    } else {
        std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md(
            pcre2_match_data_create_from_pattern(code_.get(), nullptr), pcre2_match_data_free);
        const auto* subject = reinterpret_cast<PCRE2_SPTR>(s.data());
        std::size_t offset = 0;
        while (offset <= s.size()) {
            int rc = pcre2_match(code_.get(), subject, s.size(), offset, PCRE2_NO_UTF_CHECK,
                                 md.get(), nullptr);
            if (rc == PCRE2_ERROR_JIT_STACKLIMIT)  // a very long match: the interpreter has room
                rc = pcre2_match(code_.get(), subject, s.size(), offset,
                                 PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, md.get(), nullptr);
            if (rc == PCRE2_ERROR_NOMATCH) break;
            if (rc < 0) {
                PCRE2_UCHAR why[256];
                pcre2_get_error_message(rc, why, sizeof why);
                throw ArgumentError(
                    (where_.empty() ? std::string() : where_ + ": ") +
                    "the tokenizer's regex cannot be matched on this text (PCRE2 error " +
                    std::to_string(rc) + ": " + reinterpret_cast<const char*>(why) +
                    "); shorten the text or split it into lines, or fix the "
                    "regex in the tokenizer file");
            }
            const PCRE2_SIZE* v = pcre2_get_ovector_pointer(md.get());
            hit(v[0], v[1]);
            if (v[1] > v[0]) {
                offset = v[1];
            } else {  // an empty match: go on after the next character
                if (v[1] >= s.size()) break;
                std::size_t i = v[1];
                next_cp(s, i);
                offset = i;
            }
        }
    }
    if (prev != s.size()) out.push_back({prev, s.size(), false});
    return out;
}

Behavior behavior_from_json(const Json& v, const Where& w) {
    const std::string b = v.is_string() ? v.get<std::string>() : std::string();
    if (b == "Removed") return Behavior::Removed;
    if (b == "Isolated") return Behavior::Isolated;
    if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
    if (b == "MergedWithNext") return Behavior::MergedWithNext;
    if (b == "Contiguous") return Behavior::Contiguous;
    w.fail("is " + v.dump() +
           ", not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

std::vector<std::pair<std::size_t, std::size_t>> split_spans(std::vector<Span> spans,
                                                             Behavior behavior, bool invert) {
    if (invert)
        for (Span& s : spans)
            s.match = !s.match;
    // The fold of Hugging Face's NormalizedString::split, one behavior at a time.
    std::vector<std::pair<std::size_t, std::size_t>> out;
    bool previous_match = false;
    switch (behavior) {
        case Behavior::Removed:
            for (const Span& s : spans)
                if (!s.match) out.emplace_back(s.begin, s.end);
            break;
        case Behavior::Isolated:
            for (const Span& s : spans)
                out.emplace_back(s.begin, s.end);
            break;
        case Behavior::Contiguous:
            for (const Span& s : spans) {
                if (s.match == previous_match && !out.empty())
                    out.back().second = s.end;
                else
                    out.emplace_back(s.begin, s.end);
                previous_match = s.match;
            }
            break;
        case Behavior::MergedWithPrevious:
            for (const Span& s : spans) {
                if (s.match && !previous_match && !out.empty())
                    out.back().second = s.end;
                else
                    out.emplace_back(s.begin, s.end);
                previous_match = s.match;
            }
            break;
        case Behavior::MergedWithNext:
            for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
                if (it->match && !previous_match && !out.empty())
                    out.back().first = it->begin;
                else
                    out.emplace_back(it->begin, it->end);
                previous_match = it->match;
            }
            std::reverse(out.begin(), out.end());
            break;
    }
    return out;
}

}  // namespace attn::tok::detail
