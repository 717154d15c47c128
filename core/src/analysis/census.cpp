// AttnScope core — head census. GPL-3.0-or-later. Definitions: docs/census.md.
#include "attn/analysis/census.hpp"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "attn/scene/scene_layers.hpp"
#include "attn/util/error.hpp"

namespace attn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr std::array<const char*, kPatternCount + 1> kNames = {
    "previous-token", "self", "first-token", "local", "broad", "induction", "mixed"};

std::size_t slot(HeadPattern p) {
    return static_cast<std::size_t>(p);
}

/// Mean of the values pushed, NaN when none was.
struct Mean {
    double sum = 0;
    Index n = 0;
    void add(double v) { sum += v, ++n; }
    double value() const { return n > 0 ? sum / static_cast<double>(n) : kNaN; }
};

/// For each query i, the induction target: the key after the latest earlier occurrence p of
/// token i, when p + 1 < i (p + 1 = i would be the query itself); −1 when there is none.
std::vector<Index> induction_targets(const std::vector<std::string>& tokens) {
    std::vector<Index> target(tokens.size(), -1);
    std::unordered_map<std::string, Index> last;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const auto it = last.find(tokens[i]);
        if (it != last.end() && it->second + 1 < static_cast<Index>(i)) target[i] = it->second + 1;
        last[tokens[i]] = static_cast<Index>(i);
    }
    return target;
}

}  // namespace

const char* pattern_name(HeadPattern pattern) {
    return kNames[slot(pattern)];
}

std::string pattern_column(HeadPattern pattern) {
    std::string name = pattern_name(pattern);
    for (char& c : name)
        if (c == '-') c = '_';
    return name;
}

double HeadCensus::score(HeadPattern p) const {
    return p == HeadPattern::Mixed ? kNaN : scores[slot(p)];
}

const HeadCensus& Census::at(Index layer, Index head) const {
    if (layer < 0 || layer >= layers || head < 0 || head >= heads)
        throw ArgumentError("census: layer " + std::to_string(layer) + ", head " +
                            std::to_string(head) + " is outside " + std::to_string(layers) +
                            " layers × " + std::to_string(heads) + " heads");
    return entries[static_cast<std::size_t>(layer * heads + head)];
}

bool is_causal_weights(const Matrix& A) {
    for (Index i = 0; i < A.rows(); ++i)
        for (Index j = i + 1; j < A.cols(); ++j)
            if (A(i, j) != 0.f) return false;
    return true;
}

HeadPattern census_label(const std::array<double, kPatternCount>& scores) {
    double best = -1;
    for (double s : scores)
        if (std::isfinite(s) && s > best) best = s;
    if (best < kClearScore) return HeadPattern::Mixed;
    for (HeadPattern p : kSpecificity)
        if (std::isfinite(scores[slot(p)]) && scores[slot(p)] >= best - kTieMargin) return p;
    return HeadPattern::Mixed;
}

HeadCensus census_head(const Matrix& A, const std::vector<std::string>& tokens,
                       const BoolMatrix& visible) {
    const Index n = A.rows();
    if (A.cols() != n || static_cast<Index>(tokens.size()) != n)
        throw ShapeError("census: the weights are " + std::to_string(A.rows()) + " × " +
                         std::to_string(A.cols()) + " for " + std::to_string(tokens.size()) +
                         " tokens; the census needs square self-attention");
    const bool all_visible = visible.size() == 0;
    if (!all_visible && (visible.rows() != n || visible.cols() != n))
        throw ShapeError("census: the visibility matrix does not match the weights");
    const auto seen = [&](Index i, Index j) { return all_visible || visible(i, j); };
    const std::vector<Index> target = induction_targets(tokens);
    Mean prev, self, first, local, broad, induction;
    for (Index i = 0; i < n; ++i) {
        Index keys = 0;
        double entropy = 0, near = 0;
        for (Index j = 0; j < n; ++j) {
            if (!seen(i, j)) continue;
            ++keys;
            const double a = A(i, j);
            if (a > 0) entropy -= a * std::log(a);
            if (std::abs(i - j) <= kLocalWindow) near += a;
        }
        // A query with a single visible key has no choice to make (row 0 of a causal head).
        if (keys < 2) continue;
        self.add(A(i, i));
        local.add(near);
        broad.add(entropy / std::log(static_cast<double>(keys)));
        if (i >= 1) {
            prev.add(A(i, i - 1));
            first.add(A(i, 0));
        }
        if (target[static_cast<std::size_t>(i)] >= 0)
            induction.add(A(i, target[static_cast<std::size_t>(i)]));
    }
    HeadCensus c;
    c.scores[slot(HeadPattern::PreviousToken)] = prev.value();
    c.scores[slot(HeadPattern::Self)] = self.value();
    c.scores[slot(HeadPattern::FirstToken)] = first.value();
    c.scores[slot(HeadPattern::Induction)] = induction.value();
    c.scores[slot(HeadPattern::Local)] = local.value();
    c.scores[slot(HeadPattern::Broad)] = broad.value();
    c.label = census_label(c.scores);
    return c;
}

void require_self_attention(const SceneResult& result, const char* what) {
    if (result.q_tokens.size() != result.k_tokens.size() || result.q_tokens != result.k_tokens)
        throw ArgumentError(std::string(what) + " needs square self-attention (the same tokens " +
                            "as queries and keys); this scene is " +
                            std::to_string(result.q_tokens.size()) + " queries × " +
                            std::to_string(result.k_tokens.size()) + " keys of other tokens");
}

std::vector<HeadCensus> census_layer(const SceneResult& result) {
    require_self_attention(result, "the census");
    const Index n = static_cast<Index>(result.q_tokens.size());
    // Loaded post-softmax weights carry no mask: a layer whose heads are all exactly zero above
    // the diagonal is a decoder's, and its queries could only see the keys up to themselves.
    bool causal = !result.has_scores;
    for (const auto& h : result.heads)
        causal = causal && is_causal_weights(h.weights);
    std::vector<HeadCensus> out;
    for (std::size_t h = 0; h < result.heads.size(); ++h) {
        BoolMatrix visible(n, n);
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j)
                visible(i, j) = causal ? j <= i : !result.is_masked(static_cast<Index>(h), i, j);
        HeadCensus c = census_head(result.heads[h].weights, result.q_tokens, visible);
        c.layer = result.layer;
        c.head = static_cast<Index>(h);
        out.push_back(c);
    }
    return out;
}

Census census(const SceneSpec& spec, Progress* progress) {
    Census c;
    c.layers = layer_count(spec);
    for_each_layer(
        spec,
        [&](Index l, const SceneResult& r) {
            std::vector<HeadCensus> layer = census_layer(r);
            c.heads = static_cast<Index>(layer.size());
            for (HeadCensus& h : layer) {
                h.layer = l;
                c.entries.push_back(h);
            }
        },
        progress, true);
    return c;
}

}  // namespace attn
