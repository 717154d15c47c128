// AttnScope core — tokens to embeddings, positional encodings. GPL-3.0-or-later.
#include "attn/scene/embedding.hpp"

#include <cmath>
#include <string>

#include "../util/fnv1a.hpp"
#include "../util/utf8.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn {

namespace {

using detail::CodePoint;
using detail::decode_utf8;

bool is_space(char32_t c) {
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200B) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

bool is_digit(char32_t c) {
    return c >= '0' && c <= '9';
}

// Outside ASCII, everything that is not a known punctuation or symbol block counts as part of
// a word: letters of every script, combining marks, CJK ideographs.
bool is_word(char32_t c) {
    if (is_space(c)) return false;
    if (c < 0x80)
        return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (c >= 0xA1 && c <= 0xBF)
        return c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA ||
               (c >= 0xBC && c <= 0xBE);
    if (c == 0xD7 || c == 0xF7) return false;
    if (c >= 0x2010 && c <= 0x2BFF) return false;  // punctuation, currency, arrows, math, shapes
    if (c >= 0x3001 && c <= 0x303F) return false;  // CJK punctuation
    if (c >= 0xFE10 && c <= 0xFE6F) return false;  // vertical / small forms
    if ((c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) ||
        (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65))
        return false;                                // fullwidth punctuation
    if (c >= 0x1F000 && c <= 0x1FAFF) return false;  // emoji and pictographs
    return true;
}

bool is_apostrophe(char32_t c) {
    return c == '\'' || c == 0x2019;
}

}  // namespace

std::vector<std::string> tokenize(std::string_view text) {
    const std::vector<CodePoint> cps = decode_utf8(text);
    std::vector<std::string> tokens;
    const std::size_t n = cps.size();
    std::size_t i = 0;
    auto bytes = [&](std::size_t a, std::size_t b) {  // code points [a, b)
        return std::string(
            text.substr(cps[a].begin, cps[b - 1].begin + cps[b - 1].size - cps[a].begin));
    };
    while (i < n) {
        const char32_t c = cps[i].cp;
        if (is_space(c)) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        if (is_word(c)) {
            ++i;
            while (i < n) {
                const char32_t x = cps[i].cp;
                if (is_word(x)) {
                    ++i;
                    continue;
                }
                // Joiners stay inside a token only between the right neighbours: "don't",
                // "3.14", "1,000".
                if (i + 1 < n) {
                    const char32_t prev = cps[i - 1].cp, next = cps[i + 1].cp;
                    const bool contraction =
                        is_apostrophe(x) && is_word(prev) && is_word(next) && !is_digit(next);
                    const bool number = (x == '.' || x == ',') && is_digit(prev) && is_digit(next);
                    if (contraction || number) {
                        i += 2;
                        continue;
                    }
                }
                break;
            }
        } else {
            // A run of the same mark ("...", "!!") is one token; different marks are separate.
            ++i;
            while (i < n && cps[i].cp == c)
                ++i;
        }
        tokens.push_back(bytes(start, i));
    }
    return tokens;
}

Matrix hashed_embeddings(const std::vector<std::string>& tokens, Index d_model,
                         std::uint64_t seed) {
    if (d_model <= 0)
        throw ArgumentError("d_model must be positive (got " + std::to_string(d_model) + ").");
    Matrix E(static_cast<Index>(tokens.size()), d_model);
    for (Index i = 0; i < E.rows(); ++i) {
        Rng rng(derive_seed(seed, detail::fnv1a(tokens[static_cast<std::size_t>(i)])));
        for (Index j = 0; j < d_model; ++j)
            E(i, j) = static_cast<float>(rng.normal());
    }
    return E;
}

Matrix positional_encoding(PositionalKind kind, Index n, Index d_model, std::uint64_t seed) {
    if (n < 0 || d_model <= 0)
        throw ArgumentError("Positional encoding needs n >= 0 and d_model > 0 (got n = " +
                            std::to_string(n) + ", d_model = " + std::to_string(d_model) + ").");
    switch (kind) {
        case PositionalKind::Sinusoidal: {
            Matrix P(n, d_model);
            for (Index pos = 0; pos < n; ++pos)
                for (Index j = 0; j < d_model; ++j) {
                    const double freq = std::pow(
                        10000.0, -static_cast<double>(j - j % 2) / static_cast<double>(d_model));
                    const double a = static_cast<double>(pos) * freq;
                    P(pos, j) = static_cast<float>(j % 2 == 0 ? std::sin(a) : std::cos(a));
                }
            return P;
        }
        case PositionalKind::Learned:
            // Variance 1/2 matches a sinusoid's, so both kinds weigh the same against tokens.
            // Row p does not depend on n: a longer sentence extends the same table.
            return Rng(derive_seed(seed, 0x504F534954494F4EULL))
                .normal_matrix(n, d_model, std::sqrt(0.5));
        case PositionalKind::None:
            return Matrix::Zero(n, d_model);
    }
    return Matrix::Zero(n, d_model);
}

std::string_view to_string(PositionalKind kind) {
    switch (kind) {
        case PositionalKind::Sinusoidal:
            return "sinusoidal";
        case PositionalKind::Learned:
            return "learned";
        case PositionalKind::None:
            return "none";
    }
    return "none";
}

PositionalKind positional_kind_from_string(std::string_view name) {
    if (name == "sinusoidal") return PositionalKind::Sinusoidal;
    if (name == "learned") return PositionalKind::Learned;
    if (name == "none") return PositionalKind::None;
    throw ArgumentError("Unknown positional encoding \"" + std::string(name) +
                        "\"; expected sinusoidal, learned or none.");
}

}  // namespace attn
