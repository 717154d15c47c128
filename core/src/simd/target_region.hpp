// AttnScope core — the start and end of a region of functions compiled for one instruction set
// (the kernels' copies), for GCC (#pragma GCC target) and clang (#pragma clang attribute), so
// that a clang build — the sanitizer tree — runs the same vector kernels as a GCC one.
// GPL-3.0-or-later.
#pragma once

#if defined(__x86_64__) && defined(__clang__)
#define ATTN_TARGET_AVX2 \
    _Pragma("clang attribute push(__attribute__((target(\"avx2\"))), apply_to = function)")
#define ATTN_TARGET_AVX2_FMA \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define ATTN_TARGET_AVX512 \
    _Pragma("clang attribute push(__attribute__((target(\"avx512f\"))), apply_to = function)")
#define ATTN_TARGET_END _Pragma("clang attribute pop")
#define ATTN_TARGET_REGIONS 1
#elif defined(__x86_64__) && defined(__GNUC__)
#define ATTN_TARGET_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2\")")
#define ATTN_TARGET_AVX2_FMA _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define ATTN_TARGET_AVX512 _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f\")")
#define ATTN_TARGET_END _Pragma("GCC pop_options")
#define ATTN_TARGET_REGIONS 1
#endif
