// AttnScope core — buffers kept between a weight's products (widened tiles, bytes read from
// the file). Internal. GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace attn::model::float_tensor_detail {

/// Buffers of at least the size asked for, kept between products: a fresh 2 MB allocation per
/// product would fault its pages in again every time (costly on a virtual machine), and the threads
/// of a product are new each time, so a thread_local buffer would be too.
template <class T>
class Pool {
  public:
    std::vector<T> take(std::size_t n) {
        std::vector<T> v;
        {
            std::lock_guard lock(mu_);
            if (!free_.empty()) {
                v = std::move(free_.back());
                free_.pop_back();
            }
        }
        // Grown, never shrunk: growing fills the new part with zeros, a pass over the memory
        // that a reused buffer of the right size does not pay.
        if (v.size() < n) v.resize(n);
        return v;
    }
    void give(std::vector<T> v) {
        std::lock_guard lock(mu_);
        if (free_.size() < 16) free_.push_back(std::move(v));
    }

  private:
    std::mutex mu_;
    std::vector<std::vector<T>> free_;
};

/// Widened tiles.
inline Pool<float>& tile_pool() {
    static Pool<float> pool;
    return pool;
}

/// Stored bytes read from the file before they are widened or decoded.
inline Pool<std::byte>& staging_pool() {
    static Pool<std::byte> pool;
    return pool;
}

/// A buffer from POOL for the scope it lives in.
template <class T>
struct Pooled {
    Pool<T>& pool;
    std::vector<T> v;
    Pooled(Pool<T>& p, std::size_t n) : pool(p), v(p.take(n)) {}
    ~Pooled() { pool.give(std::move(v)); }
    Pooled(const Pooled&) = delete;
    Pooled& operator=(const Pooled&) = delete;
};

}  // namespace attn::model::float_tensor_detail
