// AttnScope core — what a run takes. GPL-3.0-or-later.
#include "attn/models/run_inputs.hpp"

#include <algorithm>

#include "../util/utf8.hpp"

namespace attn::model {

double run_bytes(const ModelInfo& info, Index n) {
    const double heads = double(info.layers) * double(info.heads);
    const double dk = double(info.head_dim);
    // Per head: raw, scaled, masked, weights (n × n), output, q, k, v (n × d_k); plus the
    // residual stream's working matrices (n × 4·d at most, a few of them).
    return 4.0 * (heads * (4.0 * double(n) * double(n) + 4.0 * double(n) * dk) +
                  8.0 * double(n) * double(info.d_model));
}

std::optional<Index> fill_mask_position(const ModelInfo& info, const Tokenizer& tokenizer,
                                        const std::vector<std::int32_t>& ids) {
    if (info.causal) return std::nullopt;
    const std::optional<std::int32_t> mask = tokenizer.token_id("[MASK]");
    if (!mask) return std::nullopt;
    const auto at = std::find(ids.begin(), ids.end(), *mask);
    if (at == ids.end()) return std::nullopt;
    return Index(at - ids.begin());
}

std::string fit_text(const Tokenizer& tokenizer, const std::string& text, Index max_tokens,
                     bool* cut) {
    bool more = false;
    std::vector<std::int32_t> ids =
        tokenizer.encode(text, std::size_t(std::max<Index>(0, max_tokens)), &more);
    if (cut) *cut = more;
    if (!more) return text;
    // Byte-level tokens may end inside a character: drop tokens until the decoded start is
    // whole text that encodes back within the limit.
    ids.resize(std::size_t(std::max<Index>(0, max_tokens)));
    while (!ids.empty()) {
        std::string start = tokenizer.decode(ids);
        if (detail::repair_utf8(start) == start &&
            Index(tokenizer.encode(start).size()) <= max_tokens)
            return start;
        ids.pop_back();
    }
    return {};
}

}  // namespace attn::model
