// AttnScope core — writing every stage of a computed scene (`attnscope compute`).
// GPL-3.0-or-later.
//
// .npz (stored) arrays, float32 C order; H heads, Nq queries, Nk keys, d_v value width:
//   raw, scaled, masked, weights [H,Nq,Nk]  (masked holds −inf at masked pairs)
//   output [H,Nq,d_v]; empty_rows [H,Nq] (1 = every key masked); scale_factor [H]
//   q_tokens [Nq], k_tokens [Nk] (unicode); d_k [1]; layer [1]
//   computed scenes also: X [Nq,d_model], X_kv [Nk,d_model], Q, K, V (projections),
//   layer_output [Nq,d_model]
// With several layers (one SceneResult each) the per-head arrays gain a leading L axis
// ([L,H,Nq,Nk]) and `layer` lists the layer indices. A stage that is empty in every head (loaded
// post-softmax weights have no raw scores) is left out.
// .json: {"format": "attnscope-compute", "version": 1, "q_tokens": […], "k_tokens": […],
//   "d_k": …, "layers": [{"layer": l, "heads": [{"raw": [[…]], "scaled", "masked", "weights",
//   "output", "empty_rows": [0|1…], "scale_factor": …}, …]}, …]}; −inf (masked) is written null.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/io/zip/zip_writer.hpp"
#include "attn/scene/scene.hpp"

namespace attn::io {

/// Writes results to path one layer at a time, in exactly the layout above (.npz or .json by
/// the extension; others throw ArgumentError): a layer's arrays can be freed once add() returns,
/// so peak memory is one layer's, not every layer's. Unfinished, it leaves no file behind.
class ResultStream {
  public:
    /// Opens the output for `layers` results; throws Error when it cannot be created.
    ResultStream(const std::string& path, std::size_t layers,
                 std::uint64_t zip64_limit = ZipWriter::kZip64Limit);
    ~ResultStream();
    ResultStream(const ResultStream&) = delete;
    ResultStream& operator=(const ResultStream&) = delete;
    /// Writes only the named stages (of raw, scaled, masked, weights, output); call before add().
    void select_stages(std::vector<std::string> names);
    /// Writes the next layer; throws ShapeError when it does not match the first layer's shapes.
    /// A streamed layer (SceneResult::streamed) is written tile by tile of queries, recomputed
    /// from Q, K and V: memory stays one tile's whatever the size of the file (.npz only).
    void add(const SceneResult& layer);
    /// Adds one more float32 array (e.g. `rollout` [L,Nq,Nk]) after the layers, before finish:
    /// an .npz member, or a top-level JSON key holding nested lists of the given shape.
    void add_array(const std::string& name, const std::vector<std::uint64_t>& shape,
                   std::vector<float> values);
    /// Adds an int32 array (e.g. a model run's `token_ids` [n]) after the layers, of SHAPE (empty:
    /// one dimension).
    void add_int_array(const std::string& name, std::vector<std::int32_t> values,
                       std::vector<std::uint64_t> shape = {});
    /// Completes the file once every announced layer was added.
    void finish();

    struct Sink;  ///< the .npz or .json writer

  private:
    std::unique_ptr<Sink> sink_;
};

}  // namespace attn::io
