// AttnScope core — finding a tokenizer.json's added tokens in text. GPL-3.0-or-later.
#include "added_vocabulary.hpp"

#include "unicode.hpp"

namespace attn::tok::detail {

void AddedMatcher::build(const std::vector<const AddedToken*>& tokens,
                         const std::vector<std::string>& patterns) {
    tokens_ = tokens;
    for (std::size_t t = 0; t < patterns.size(); ++t) {
        const std::string& p = patterns[t];
        if (p.empty()) continue;
        first_byte_[static_cast<unsigned char>(p[0])] = true;
        std::int32_t node = 0;
        for (const unsigned char b : p) {
            const std::uint64_t key = (std::uint64_t(node) << 8) | b;
            const auto it = edges_.find(key);
            if (it != edges_.end()) {
                node = it->second;
            } else {
                const auto child = std::int32_t(terminal_.size());
                terminal_.push_back(-1);
                edges_.emplace(key, child);
                node = child;
            }
        }
        if (terminal_[std::size_t(node)] < 0) terminal_[std::size_t(node)] = int(t);
    }
}

int AddedMatcher::longest_at(std::string_view s, std::size_t at, std::size_t* end) const {
    int best = -1;
    std::int32_t node = 0;
    for (std::size_t i = at; i < s.size(); ++i) {
        const auto it = edges_.find((std::uint64_t(node) << 8) | static_cast<unsigned char>(s[i]));
        if (it == edges_.end()) break;
        node = it->second;
        if (terminal_[std::size_t(node)] >= 0) best = terminal_[std::size_t(node)], *end = i + 1;
    }
    return best;
}

namespace {

char32_t last_cp(std::string_view s, std::size_t* begin) {
    std::size_t b = s.size() - 1;
    while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80)
        --b;
    std::size_t i = b;
    *begin = b;
    return next_cp(s, i);
}

}  // namespace

std::vector<Segment> AddedMatcher::split(std::string_view s) const {
    std::vector<Segment> out;
    std::size_t start_offset = 0;
    for (std::size_t pos = 0; pos < s.size() && !tokens_.empty();) {
        std::size_t stop = 0;
        const int t =
            first_byte_[static_cast<unsigned char>(s[pos])] ? longest_at(s, pos, &stop) : -1;
        if (t < 0) {
            ++pos;
            continue;
        }
        const AddedToken& tok = *tokens_[std::size_t(t)];
        std::size_t start = pos;
        pos = stop;                          // the next match starts after this one, used or not
        if (start < start_offset) continue;  // inside what an rstrip took
        if (tok.single_word) {
            std::size_t b = 0, i = stop;
            const bool word_before = start > 0 && is_word_char(last_cp(s.substr(0, start), &b));
            const bool word_after = stop < s.size() && is_word_char(next_cp(s, i));
            if (word_before || word_after) continue;
        }
        if (tok.lstrip) {
            std::size_t b = start;
            while (b > 0) {
                std::size_t cb = 0;
                if (!is_white_space(last_cp(s.substr(0, b), &cb))) break;
                b = cb;
            }
            start = std::max(b, start_offset);
        }
        if (tok.rstrip)
            for (std::size_t i = stop; i < s.size();) {
                if (!is_white_space(next_cp(s, i))) break;
                stop = i;
            }
        if (start_offset < start) out.push_back({start_offset, start, -1});
        out.push_back({start, stop, tok.id});
        start_offset = stop;
        pos = std::max(pos, stop);
    }
    if (start_offset < s.size()) out.push_back({start_offset, s.size(), -1});
    return out;
}

}  // namespace attn::tok::detail
