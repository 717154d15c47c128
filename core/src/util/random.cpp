// AttnScope core — seeded RNG (splitmix64 seeding, xoshiro256**, Box–Muller). GPL-3.0-or-later.
#include "attn/util/random.hpp"

#include <cmath>
#include <numbers>

#include "attn/util/error.hpp"

namespace attn {

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
    // splitmix64 expands any seed (including 0) into a state that is never all zero.
    std::uint64_t sm = seed;
    for (auto& s : s_)
        s = splitmix64(sm);
}

std::uint64_t Rng::next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

double Rng::uniform() {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double Rng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    // 1 − u lies in (0, 1], so the logarithm is always finite.
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 2.0 * std::numbers::pi * u2;
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
}

Matrix Rng::normal_matrix(Index rows, Index cols, double stddev) {
    if (rows < 0 || cols < 0)
        throw ArgumentError("normal_matrix: negative size " + std::to_string(rows) + " x " +
                            std::to_string(cols) + ".");
    Matrix m(rows, cols);
    // Row-major fill order is part of the reproducibility contract.
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j)
            m(i, j) = static_cast<float>(stddev * normal());
    return m;
}

Matrix Rng::xavier(Index fan_in, Index fan_out) {
    if (fan_in <= 0 || fan_out <= 0)
        throw ArgumentError("xavier: fan_in and fan_out must be positive (got " +
                            std::to_string(fan_in) + " and " + std::to_string(fan_out) + ").");
    const double a = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
    Matrix m(fan_in, fan_out);
    for (Index i = 0; i < fan_in; ++i)
        for (Index j = 0; j < fan_out; ++j)
            m(i, j) = static_cast<float>(a * (2.0 * uniform() - 1.0));
    return m;
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
    // Two rounds of mixing so that nearby (seed, stream) pairs give unrelated seeds.
    std::uint64_t s = seed ^ (stream * 0xD1B54A32D192ED03ULL + 0x8CB92BA72F3D8DD7ULL);
    const std::uint64_t a = splitmix64(s);
    std::uint64_t t = a ^ stream;
    return splitmix64(t);
}

}  // namespace attn
