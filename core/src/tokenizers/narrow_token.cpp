// AttnScope core — a token's shorter forms. GPL-3.0-or-later.
#include "attn/tokenizers/narrow_token.hpp"

namespace attn {

std::vector<std::string> narrow_forms(const std::string& token) {
    std::vector<std::string> forms = {token};
    if (token.size() < 3) return forms;
    const char open = token.front(), close = token.back();
    if (!((open == '<' && close == '>') || (open == '[' && close == ']'))) return forms;
    std::string name = token.substr(1, token.size() - 2);
    // GPT-2's <|endoftext|>: its pipes are brackets too.
    if (name.size() >= 2 && name.front() == '|' && name.back() == '|')
        name = name.substr(1, name.size() - 2);
    if (!name.empty() && name != token) forms.push_back(name);
    return forms;
}

}  // namespace attn
