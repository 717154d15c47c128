// Tests of attn::build_mask: every kind checked by hand, rectangular alignment, errors.
#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "attn/attention/mask.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::BoolMatrix;
using attn::MaskKind;
using attn::MaskSpec;

BoolMatrix bm(attn::Index r, attn::Index c, std::initializer_list<int> v) {
    BoolMatrix m(r, c);
    auto it = v.begin();
    for (attn::Index i = 0; i < r; ++i)
        for (attn::Index j = 0; j < c; ++j)
            m(i, j) = *it++ != 0;
    return m;
}

MaskSpec spec(MaskKind k) {
    MaskSpec s;
    s.kind = k;
    return s;
}

TEST(Mask, NoneAllowsEverything) {
    EXPECT_TRUE(attn::build_mask(spec(MaskKind::None), 3, 5).all());
}

TEST(Mask, CausalSquare) {
    EXPECT_EQ(attn::build_mask(spec(MaskKind::Causal), 4, 4), bm(4, 4,
                                                                 {1, 0, 0, 0,  //
                                                                  1, 1, 0, 0,  //
                                                                  1, 1, 1, 0,  //
                                                                  1, 1, 1, 1}));
}

TEST(Mask, CausalRectangularIsBottomRightAligned) {
    // Two new queries over five cached keys: query 0 is position 3, query 1 is position 4.
    EXPECT_EQ(attn::build_mask(spec(MaskKind::Causal), 2, 5), bm(2, 5,
                                                                 {1, 1, 1, 1, 0,  //
                                                                  1, 1, 1, 1, 1}));
    // More queries than keys: the first queries see nothing.
    EXPECT_EQ(attn::build_mask(spec(MaskKind::Causal), 4, 2), bm(4, 2,
                                                                 {0, 0,  //
                                                                  0, 0,  //
                                                                  1, 0,  //
                                                                  1, 1}));
}

TEST(Mask, AntiCausal) {
    EXPECT_EQ(attn::build_mask(spec(MaskKind::AntiCausal), 3, 3), bm(3, 3,
                                                                     {1, 1, 1,  //
                                                                      0, 1, 1,  //
                                                                      0, 0, 1}));
    EXPECT_EQ(attn::build_mask(spec(MaskKind::AntiCausal), 2, 3), bm(2, 3,
                                                                     {1, 1, 1,  //
                                                                      0, 1, 1}));
}

TEST(Mask, PaddingHidesKeysFromEveryQuery) {
    MaskSpec s = spec(MaskKind::Padding);
    s.key_valid = {true, false, true};  // key 3 missing → valid
    EXPECT_EQ(attn::build_mask(s, 2, 4), bm(2, 4,
                                            {1, 0, 1, 1,  //
                                             1, 0, 1, 1}));
}

TEST(Mask, SlidingWindow) {
    MaskSpec s = spec(MaskKind::SlidingWindow);
    s.window = 1;
    EXPECT_EQ(attn::build_mask(s, 5, 5), bm(5, 5, {1, 1, 0, 0, 0,  //
                                                   1, 1, 1, 0, 0,  //
                                                   0, 1, 1, 1, 0,  //
                                                   0, 0, 1, 1, 1,  //
                                                   0, 0, 0, 1, 1}));
    s.window = 0;
    EXPECT_EQ(attn::build_mask(s, 3, 3), bm(3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TEST(Mask, GlobalPlusWindow) {
    MaskSpec s = spec(MaskKind::GlobalWindow);
    s.window = 1;
    s.global = {0};
    EXPECT_EQ(attn::build_mask(s, 5, 5), bm(5, 5, {1, 1, 1, 1, 1,  //
                                                   1, 1, 1, 0, 0,  //
                                                   1, 1, 1, 1, 0,  //
                                                   1, 0, 1, 1, 1,  //
                                                   1, 0, 0, 1, 1}));
    s.window = 0;
    s.global = {1, 3};
    EXPECT_EQ(attn::build_mask(s, 4, 4), bm(4, 4,
                                            {1, 1, 0, 1,  //
                                             1, 1, 1, 1,  //
                                             0, 1, 1, 1,  //
                                             1, 1, 1, 1}));
}

TEST(Mask, CustomIsCopied) {
    MaskSpec s = spec(MaskKind::Custom);
    s.custom = bm(2, 3, {1, 0, 1, 0, 0, 1});
    EXPECT_EQ(attn::build_mask(s, 2, 3), s.custom);
}

TEST(Mask, Errors) {
    MaskSpec c = spec(MaskKind::Custom);
    c.custom = BoolMatrix::Constant(2, 2, true);
    EXPECT_THROW_MSG(attn::build_mask(c, 3, 3), attn::ShapeError, "2 x 2", "3 x 3");
    MaskSpec p = spec(MaskKind::Padding);
    p.key_valid = {true, true, true, true};
    EXPECT_THROW_MSG(attn::build_mask(p, 2, 3), attn::ShapeError, "4 key flags", "3 keys");
    MaskSpec w = spec(MaskKind::SlidingWindow);
    w.window = -1;
    EXPECT_THROW_MSG(attn::build_mask(w, 2, 2), attn::ArgumentError, "-1");
    MaskSpec g = spec(MaskKind::GlobalWindow);
    g.global = {7};
    EXPECT_THROW_MSG(attn::build_mask(g, 3, 3), attn::ArgumentError, "7", "3 queries");
    EXPECT_THROW(attn::build_mask(spec(MaskKind::None), -1, 2), attn::ArgumentError);
}

TEST(Mask, NamesRoundTrip) {
    for (auto k : {MaskKind::None, MaskKind::Causal, MaskKind::AntiCausal, MaskKind::Padding,
                   MaskKind::SlidingWindow, MaskKind::GlobalWindow, MaskKind::Custom})
        EXPECT_EQ(attn::mask_kind_from_string(attn::to_string(k)), k);
    EXPECT_EQ(attn::to_string(MaskKind::AntiCausal), "anti-causal");
    EXPECT_THROW_MSG(attn::mask_kind_from_string("diagonal"), attn::ArgumentError, "diagonal");
}

}  // namespace
