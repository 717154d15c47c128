// A token's shorter forms for narrow cells (narrow_forms): a bracketed special token's name
// without its brackets, everything else only itself. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include "attn/tokenizers/narrow_token.hpp"

namespace {

using Forms = std::vector<std::string>;

TEST(NarrowForms, ABracketedSpecialTokenDropsItsBrackets) {
    EXPECT_EQ(attn::narrow_forms("</s>"), (Forms{"</s>", "/s"}));
    EXPECT_EQ(attn::narrow_forms("<pad>"), (Forms{"<pad>", "pad"}));
    EXPECT_EQ(attn::narrow_forms("<0xA8>"), (Forms{"<0xA8>", "0xA8"}));
    EXPECT_EQ(attn::narrow_forms("<|endoftext|>"), (Forms{"<|endoftext|>", "endoftext"}));
    EXPECT_EQ(attn::narrow_forms("[CLS]"), (Forms{"[CLS]", "CLS"}));
}

TEST(NarrowForms, AnythingElseIsOnlyItself) {
    for (const std::string t : {"", "a", "<>", "[]", "<a", "a>", "▁the", "<a]", "(x)", "<||>"})
        EXPECT_EQ(attn::narrow_forms(t), (Forms{t})) << t;
}

}  // namespace
