// AttnScope core — a portable, seeded random number generator. GPL-3.0-or-later.
#pragma once

#include <cstdint>

#include "attn/util/types.hpp"

namespace attn {

/// Deterministic RNG (splitmix64 + xoshiro256**, Box–Muller normals): the same seed gives the
/// same numbers on every platform and standard library, so scenes are reproducible from a seed.
class Rng {
  public:
    /// Seeds the generator.
    explicit Rng(std::uint64_t seed);
    /// Next raw 64-bit value.
    std::uint64_t next();
    /// Uniform double in [0, 1).
    double uniform();
    /// Standard normal double.
    double normal();
    /// Matrix of i.i.d. normals with the given standard deviation.
    Matrix normal_matrix(Index rows, Index cols, double stddev = 1.0);
    /// Xavier/Glorot-uniform matrix for a layer with fan_in × fan_out weights.
    Matrix xavier(Index fan_in, Index fan_out);

  private:
    std::uint64_t s_[4];
    bool has_spare_ = false;
    double spare_ = 0.0;
};

/// Mixes a seed with a stream id (e.g. head index) into an independent seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

/// splitmix64: advances state by one step and returns its mixed output (the seeding of Rng).
std::uint64_t splitmix64(std::uint64_t& state);

}  // namespace attn
