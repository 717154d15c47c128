// AttnScope core — tokenizer.json's Unigram model (SentencePiece's), as the tokenizers library's
// encode_optimized runs it. GPL-3.0-or-later.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "attn/util/error.hpp"
#include "models.hpp"
#include "unicode.hpp"

namespace attn::tok::detail {

namespace {

/// What the tokenizers library (and SentencePiece) take off the lowest score for an unknown
/// character, so that any path of known pieces beats it.
constexpr double kUnkPenalty = 10.0;

/// The length in bytes of the UTF-8 character that starts with byte B (1 for a stray byte: text
/// reaching a model is valid UTF-8, this only keeps a bad byte from stalling the walk).
std::size_t char_len(unsigned char b) {
    return b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

}  // namespace

UnigramModel::UnigramModel(const Json& j, const Where& w) {
    const Json& list = need_array(j, "vocab", w);
    const Where vw = w.at("vocab");
    if (list.empty()) vw.fail("is empty (a Unigram model needs at least its unknown piece)");
    if (list.size() > std::size_t(kMaxId))
        vw.fail("has " + std::to_string(list.size()) + " pieces, more than the " +
                std::to_string(kMaxId) + " AttnScope reads");
    vocab_.reserve(list.size());
    scores_.reserve(list.size());
    double min_score = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Json& e = list[i];
        if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number())
            vw.at(i).fail("must be [\"piece\", score], not " + e.dump().substr(0, 80));
        const std::string piece = e[0].get<std::string>();
        const double score = e[1].get<double>();
        if (!std::isfinite(score)) vw.at(i).fail("has a score that is not a finite number");
        if (piece.empty()) vw.at(i).fail("is an empty piece");
        const auto [it, fresh] = vocab_.emplace(piece, std::int32_t(i));
        if (!fresh)
            vw.at(i).fail("\"" + piece + "\" repeats vocab[" + std::to_string(it->second) + "]");
        scores_.push_back(score);
        pieces_.push_back(it->first);
        min_score = std::min(min_score, score);
    }
    sorted_.resize(pieces_.size());
    for (std::size_t i = 0; i < sorted_.size(); ++i)
        sorted_[i] = std::int32_t(i);
    // string_view compares bytes as unsigned, as the search in tokenize reads them.
    std::sort(sorted_.begin(), sorted_.end(), [&](std::int32_t a, std::int32_t b) {
        return pieces_[std::size_t(a)] < pieces_[std::size_t(b)];
    });
    if (const Json* u = opt(j, "unk_id", w))
        unk_ = std::int32_t(as_int(*u, 0, std::int64_t(list.size()) - 1, w.at("unk_id")));
    unk_score_ = min_score - kUnkPenalty;
    byte_fallback_ = opt_bool(j, "byte_fallback", false, w);
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        const auto it = vocab_.find(name);
        byte_ids_[std::size_t(b)] = it == vocab_.end() ? -1 : it->second;
    }
}

void UnigramModel::tokenize(std::string_view word, std::vector<std::int32_t>& out) const {
    // best[e]: the best path over word[0, e): its score, where its last token starts and which
    // piece that token is (-1 before any path reaches e; kUnk for an unknown character).
    constexpr std::int32_t kNone = -1, kUnk = -2;
    struct Best {
        double score = 0;
        std::size_t start = 0;
        std::int32_t piece = kNone;
    };
    const std::size_t n = word.size();
    std::vector<Best> best(n + 1);
    const auto offer = [&](std::size_t from, std::size_t to, double score, std::int32_t piece) {
        Best& b = best[to];
        const double s = best[from].score + score;
        // Strictly better only: the first path found (the shorter piece) keeps a tie.
        if (b.piece == kNone || s > b.score) b = {s, from, piece};
    };
    for (std::size_t at = 0; at < n;) {
        const std::size_t len = std::min(char_len(static_cast<unsigned char>(word[at])), n - at);
        bool single = false;
        // The pieces in sorted_[lo, hi) share word[at, k) and are longer than it; each byte
        // narrows the range to those going on with word[k]. A piece that ends there sorts
        // first: it is matched (the pieces come shortest first, as the library's trie gives
        // them) and left out of the range.
        auto lo = sorted_.begin(), hi = sorted_.end();
        for (std::size_t k = at; k < n && lo != hi; ++k) {
            const std::size_t depth = k - at;
            const auto byte = [&](std::int32_t id) {
                return static_cast<unsigned char>(pieces_[std::size_t(id)][depth]);
            };
            const auto c = static_cast<unsigned char>(word[k]);
            lo = std::lower_bound(lo, hi, c,
                                  [&](std::int32_t id, unsigned char v) { return byte(id) < v; });
            hi = std::upper_bound(lo, hi, c,
                                  [&](unsigned char v, std::int32_t id) { return v < byte(id); });
            if (lo == hi) break;
            if (pieces_[std::size_t(*lo)].size() == depth + 1) {
                offer(at, k + 1, scores_[std::size_t(*lo)], *lo);
                single = single || depth + 1 == len;
                ++lo;
            }
        }
        if (!single) {
            if (!unk_)
                throw ArgumentError(
                    "the Unigram model has no unk_id and no piece for the character at byte " +
                    std::to_string(at) + " of \"" + std::string(word.substr(0, 64)) + "\"");
            offer(at, at + len, unk_score_, kUnk);
        }
        at += len;
    }
    // Back from the end; runs of unknown characters become one token (fuse_unk, which the
    // tokenizers library always sets for Unigram).
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // [start, end) of each token
    std::vector<char> unknown;
    for (std::size_t end = n; end > 0;) {
        const Best& b = best[end];
        // The unknown piece itself, matched as text, counts as unknown too (the library
        // compares ids).
        const bool unk = b.piece == kUnk || (unk_ && b.piece == *unk_);
        if (unk && !unknown.empty() && unknown.back())
            spans.back().first = b.start;
        else {
            spans.emplace_back(b.start, end);
            unknown.push_back(unk);
        }
        end = b.start;
    }
    for (std::size_t t = spans.size(); t-- > 0;) {
        const std::string_view text = word.substr(spans[t].first, spans[t].second - spans[t].first);
        if (!unknown[t]) {
            out.push_back(best[spans[t].second].piece);
            continue;
        }
        // A fused run is looked up whole first, as the library does with every token's text.
        if (const auto it = vocab_.find(std::string(text)); it != vocab_.end()) {
            out.push_back(it->second);
            continue;
        }
        bool bytes = byte_fallback_;
        for (const unsigned char c : text)
            bytes = bytes && byte_ids_[c] >= 0;
        if (bytes)
            for (const unsigned char c : text)
                out.push_back(byte_ids_[c]);
        else
            out.push_back(*unk_);
    }
}

}  // namespace attn::tok::detail
