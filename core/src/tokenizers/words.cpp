// AttnScope core — sub-word tokens merged into words. GPL-3.0-or-later.
#include "attn/tokenizers/words.hpp"

#include <string>

#include "attn/util/error.hpp"

namespace attn {
namespace {

/// [CLS], [SEP], <s>, </s>, <|endoftext|>, <pad>: never part of a word.
bool is_special_token(const std::string& t) {
    return t.size() >= 3 &&
           ((t.front() == '[' && t.back() == ']') || (t.front() == '<' && t.back() == '>'));
}

/// True when t begins with prefix.
bool has_prefix(const std::string& t, const char* prefix) {
    return t.rfind(prefix, 0) == 0;
}

}  // namespace

WordGroups word_groups(const std::vector<std::string>& tokens) {
    bool wordpiece = false, begin_marked = false;
    for (const std::string& t : tokens) {
        wordpiece = wordpiece || has_prefix(t, "##");
        begin_marked = begin_marked || has_prefix(t, "\xC4\xA0") ||  // Ġ
                       has_prefix(t, "\xE2\x96\x81") ||              // ▁
                       has_prefix(t, " ");
    }
    WordGroups g;
    for (std::size_t n = 0; n < tokens.size(); ++n) {
        std::string t = tokens[n];
        bool continues = false;
        if (wordpiece && has_prefix(t, "##")) {
            continues = true;
            t = t.substr(2);
        } else if (!wordpiece && begin_marked) {
            if (has_prefix(t, "\xC4\xA0"))
                t = t.substr(2);
            else if (has_prefix(t, "\xE2\x96\x81"))
                t = t.substr(3);
            else if (has_prefix(t, " "))
                t = t.substr(1);
            else
                continues = true;
        }
        // A special token never joins a word, nor does a word continue one.
        const bool after_special = n > 0 && is_special_token(tokens[n - 1]);
        if (continues && n > 0 && !is_special_token(tokens[n]) && !after_special) {
            g.words.back() += t;
        } else {
            g.words.push_back(t);
        }
        g.group_of.push_back(static_cast<Index>(g.words.size()) - 1);
    }
    return g;
}

Matrix merge_words(const Matrix& weights, const WordGroups& queries, const WordGroups& keys) {
    if (static_cast<Index>(queries.group_of.size()) != weights.rows() ||
        static_cast<Index>(keys.group_of.size()) != weights.cols())
        throw ShapeError("merge_words: the word groups do not match the " +
                         std::to_string(weights.rows()) + " × " + std::to_string(weights.cols()) +
                         " weights");
    Matrix out = Matrix::Zero(queries.size(), keys.size());
    Eigen::VectorXf count = Eigen::VectorXf::Zero(queries.size());
    for (Index i = 0; i < weights.rows(); ++i) {
        const Index wi = queries.group_of[static_cast<std::size_t>(i)];
        count(wi) += 1;
        for (Index j = 0; j < weights.cols(); ++j)
            out(wi, keys.group_of[static_cast<std::size_t>(j)]) += weights(i, j);
    }
    for (Index w = 0; w < out.rows(); ++w)
        out.row(w) /= count(w);
    return out;
}

}  // namespace attn
