// Tests of the "cost" lens: FLOPs and KV-cache bytes against hand counts.
#include <gtest/gtest.h>

#include "attn/lenses/cost.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;
using namespace attn::lenses;

TEST(LensCost, FlopsEqualHandCounts) {
    // n = 10, d = 8, h = 2 (d_k = 4), MHA.
    const LayerFlops f = attention_flops(10, 8, 2);
    EXPECT_DOUBLE_EQ(f.q_proj, 2.0 * 10 * 8 * 8);       // 1280
    EXPECT_DOUBLE_EQ(f.kv_proj, 2 * 2.0 * 10 * 8 * 8);  // 2560
    EXPECT_DOUBLE_EQ(f.o_proj, 1280);
    EXPECT_DOUBLE_EQ(f.scores, 2 * (2.0 * 10 * 10 * 4));  // 1600
    EXPECT_DOUBLE_EQ(f.mix, 1600);
    EXPECT_DOUBLE_EQ(f.softmax, 5.0 * 2 * 100);
    EXPECT_DOUBLE_EQ(f.matmul(), 1280 + 2560 + 1280 + 3200);
    // GQA with 1 kv head (MQA): K and V projections shrink to d × d_k.
    const LayerFlops m = attention_flops(10, 8, 2, 1);
    EXPECT_DOUBLE_EQ(m.kv_proj, 2 * 2.0 * 10 * 8 * 4);
}

TEST(LensCost, MatmulFlopsIndependentOfHeadCount) {
    const double ref = attention_flops(512, 768, 1).matmul();
    for (Index h : {2, 3, 4, 6, 8, 12})
        EXPECT_DOUBLE_EQ(attention_flops(512, 768, h).matmul(), ref);
}

TEST(LensCost, CrossoverAtTwiceDModelForMha) {
    EXPECT_DOUBLE_EQ(crossover_length(768, 12), 2 * 768.0);
    const LayerFlops f = attention_flops(2 * 768, 768, 12);
    EXPECT_DOUBLE_EQ(f.attention(), f.projections());
    // MQA: per-token projections 4d² + 4·d·d_k → n* = d + d_k.
    EXPECT_DOUBLE_EQ(crossover_length(768, 12, 1), 768.0 + 64.0);
}

TEST(LensCost, KvCacheBytesEqualHandCounts) {
    KvCacheConfig c;  // GPT-2 small at 1024 tokens, fp16: 2·12·1024·12·64·2 bytes
    EXPECT_EQ(kv_cache_bytes(c), 2ull * 12 * 1024 * 12 * 64 * 2);
    c.kv_heads = 4;  // GQA: a third of the heads
    EXPECT_EQ(kv_cache_bytes(c), 2ull * 12 * 1024 * 4 * 64 * 2);
    c.kv_heads = 1;  // MQA
    c.bytes_per_value = 4;
    c.batch = 3;
    EXPECT_EQ(kv_cache_bytes(c), 2ull * 12 * 3 * 1024 * 1 * 64 * 4);
    c.kv_heads = 5;
    EXPECT_THROW(kv_cache_bytes(c), ArgumentError);
    EXPECT_THROW(attention_flops(4, 10, 3), ArgumentError);
}

}  // namespace
