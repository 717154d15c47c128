// AttnScope core — what every tokenizer shares. GPL-3.0-or-later.
#include "attn/tokenizers/tokenizer.hpp"

namespace attn::model {

std::string unknown_token_text(std::int32_t id) {
    std::string out = "<id ";  // appended: GCC 12 misreads "<id " + string at -O3
    out += std::to_string(id);
    out += '>';
    return out;
}

std::vector<std::string> Tokenizer::display_tokens(const std::vector<std::int32_t>& ids) const {
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (const std::int32_t id : ids)
        out.push_back(token_text(id));
    return out;
}

}  // namespace attn::model
