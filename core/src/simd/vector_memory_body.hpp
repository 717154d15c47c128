// AttnScope core — unaligned loads and stores of the kernels' float vectors FV, included by each
// kernel body once per instruction set (after FV is declared, inside its namespace). No include
// guard on purpose. GPL-3.0-or-later.

[[gnu::always_inline]] inline FV load(const float* p) {
    FV v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

[[gnu::always_inline]] inline void store(float* p, FV v) {
    std::memcpy(p, &v, sizeof v);
}
