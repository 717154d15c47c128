// The memory budget: sizes, parsing, the estimate of a scene and refusals before allocating.
#include <gtest/gtest.h>

#include <string>

#include "attn/error.hpp"
#include "attn/memory_budget.hpp"
#include "attn/scene.hpp"
#include "test_util.hpp"

namespace {

/// Restores the default budget when a test ends.
struct BudgetGuard {
    ~BudgetGuard() { attn::set_memory_budget(0); }
};

std::string words(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) {
        text += 'w';
        text += std::to_string(i % 97);
        text += ' ';
    }
    return text;
}

TEST(MemoryBudget, FormatsAndParsesSizes) {
    EXPECT_EQ(attn::format_bytes(950), "950 B");
    EXPECT_EQ(attn::format_bytes(1200), "1.2 kB");
    EXPECT_EQ(attn::format_bytes(72e9), "72 GB");
    EXPECT_EQ(attn::format_bytes(1.6e17), "160 PB");
    EXPECT_EQ(attn::parse_bytes("12G"), 12'000'000'000ull);
    EXPECT_EQ(attn::parse_bytes("12 GB"), 12'000'000'000ull);
    EXPECT_EQ(attn::parse_bytes("512M"), 512'000'000ull);
    EXPECT_EQ(attn::parse_bytes("1GiB"), 1073741824ull);
    EXPECT_EQ(attn::parse_bytes("300000000"), 300'000'000ull);
    EXPECT_EQ(attn::parse_bytes("1.5k"), 1500ull);
    for (const char* bad : {"", "-1G", "0", "12X", "G", "1e30"})
        EXPECT_THROW(attn::parse_bytes(bad), attn::ArgumentError) << bad;
}

TEST(MemoryBudget, DefaultIsHalfThePhysicalMemory) {
    BudgetGuard guard;
    const std::uint64_t ram = attn::physical_memory();
    ASSERT_GT(ram, 0u);
    EXPECT_LE(attn::default_memory_budget(), ram / 2);
    EXPECT_EQ(attn::memory_budget(), attn::default_memory_budget());
    attn::set_memory_budget(123);
    EXPECT_EQ(attn::memory_budget(), 123u);
    attn::set_memory_budget(0);
    EXPECT_EQ(attn::memory_budget(), attn::default_memory_budget());
}

TEST(MemoryBudget, RequireNamesTheSizeAndTheWayOut) {
    BudgetGuard guard;
    attn::set_memory_budget(12'000'000'000ull);
    EXPECT_NO_THROW(attn::require_memory(11e9, "x", "y"));
    EXPECT_THROW_MSG(attn::require_memory(72e9, "30000 tokens × 4 heads × 5 stages",
                                          "use --stages weights, fewer tokens or heads"),
                     attn::ResourceError,
                     "30000 tokens × 4 heads × 5 stages = 72 GB, more than the 12 GB memory "
                     "budget; use --stages weights, fewer tokens or heads");
}

TEST(MemoryBudget, SceneEstimateByStorage) {
    attn::SceneSpec spec;
    spec.text = words(30000);
    spec.heads = 4;
    // 30000² cells × 4 heads × 2 stages (raw, weights) × 4 bytes = 28.8 GB, the largest part.
    const attn::SceneEstimate all = attn::estimate_scene(spec, attn::Storage::Stages);
    EXPECT_NEAR(all.largest_bytes, 30000.0 * 30000 * 4 * 2 * 4 + 4.0 * 30000 * 16 * 4, 1);
    EXPECT_EQ(all.largest, "30000 tokens × 4 heads × 2 stages");
    const attn::SceneEstimate w = attn::estimate_scene(spec, attn::Storage::Weights);
    EXPECT_NEAR(w.largest_bytes, 30000.0 * 30000 * 4 * 4 + 30000.0 * 30000, 1);
    const attn::SceneEstimate s = attn::estimate_scene(spec, attn::Storage::Streamed);
    EXPECT_LT(s.bytes, 200e6);  // no n² term
    {
        // One wide head: the 9 token vectors and the keys the streamed pass packs per thread.
        attn::SceneSpec wide = spec;
        wide.heads = 1;
        wide.d_model = 1024;
        const attn::SceneEstimate e = attn::estimate_scene(wide, attn::Storage::Streamed);
        EXPECT_GE(e.bytes, 30000.0 * 1024 * 4 * 10);
    }
    EXPECT_EQ(attn::storage_for(spec), attn::Storage::Streamed);
    spec.text = words(600);
    EXPECT_EQ(attn::storage_for(spec), attn::Storage::Stages);  // 1.4 M cells
    spec.text = words(1800);
    EXPECT_EQ(attn::storage_for(spec), attn::Storage::Weights);  // 13 M cells
}

/// Counts every call a computation makes to its progress: one that started would report or ask
/// whether to stop, one refused up front never does.
struct CountingProgress : attn::Progress {
    mutable int calls = 0;
    void update(double) override { ++calls; }
    bool cancelled() const override {
        ++calls;
        return false;
    }
};

TEST(MemoryBudget, HugeRequestsAreRefusedBeforeAllocating) {
    BudgetGuard guard;
    attn::set_memory_budget(12'000'000'000ull);
    attn::SceneSpec spec;
    spec.d_model = 100'000'000;
    CountingProgress progress;
    EXPECT_THROW_MSG(attn::compute_scene(spec, &progress, attn::Storage::Stages),
                     attn::ResourceError, "d_model 100000000", "160 PB", "12 GB memory budget");
    spec.d_model = 64;
    spec.text = words(30000);
    EXPECT_THROW_MSG(attn::compute_scene(spec, &progress, attn::Storage::Stages),
                     attn::ResourceError, "30000 tokens × 4 heads × 2 stages", "29 GB");
    // Refused, not attempted: no computation began (none reported progress).
    EXPECT_EQ(progress.calls, 0);
    // The probe sees a computation that does begin: a small scene reports as it goes.
    spec.text = words(40);
    CountingProgress small;
    EXPECT_EQ(attn::compute_scene(spec, &small, attn::Storage::Stages).heads.size(), 4u);
    EXPECT_GT(small.calls, 0);
}

}  // namespace
