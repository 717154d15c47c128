// AttnScope core — hooks that keep what a run computed. GPL-3.0-or-later.
#include "attn/interventions/capture.hpp"

namespace attn::interv {

CaptureHooks::CaptureHooks(const model::ModelInfo& info)
    : heads_(info.heads),
      z_(std::size_t(info.layers) * std::size_t(info.heads)),
      attn_(std::size_t(info.layers)),
      mlp_(std::size_t(info.layers)) {}

void CaptureHooks::z(int layer, int head, Index, Matrix& z) {
    z_[std::size_t(layer * heads_ + head)] = z;
}

void CaptureHooks::attn_out(int layer, Index, const Matrix& out) {
    attn_[std::size_t(layer)] = out;
}

void CaptureHooks::mlp_out(int layer, Index, const Matrix& out) {
    mlp_[std::size_t(layer)] = out;
}

}  // namespace attn::interv
