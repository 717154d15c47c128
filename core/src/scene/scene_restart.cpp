// AttnScope core — what a change of scene invalidates, and recomputing only that.
// GPL-3.0-or-later.
#include "attn/scene/scene.hpp"
#include "scene_detail.hpp"

namespace attn {

SceneRestart restart_from(const SceneSpec& before, const SceneSpec& after) {
    if (before == after) return SceneRestart::None;
    if (before.is_model() || after.is_model()) return SceneRestart::Full;
    // The fields that act only from the scores on (scaling, temperature, mask; a loaded file's
    // d_k only scales): with them taken from `after`, is anything else different?
    SceneSpec softmax_only = before;
    softmax_only.temperature = after.temperature;
    softmax_only.scale = after.scale;
    softmax_only.mask = after.mask;
    softmax_only.data_dk = after.data_dk;
    return softmax_only == after ? SceneRestart::Softmax : SceneRestart::Full;
}

namespace {

/// True when base holds what the Softmax restart of a computed scene reuses, for `storage`.
bool reusable(const SceneResult& base, const SceneSpec& spec, Storage storage) {
    return spec.is_synthetic() && base.has_vectors && !base.merged_words &&
           base.preview_stride == 1 && base.Q.size() != 0 &&
           static_cast<Index>(base.heads.size()) == spec.heads && base.storage == storage;
}

}  // namespace

SceneResult recompute_scene(const SceneResult& base, const SceneSpec& base_spec,
                            const SceneSpec& spec, Progress* progress, Storage storage,
                            SceneResult* recycle, int overview_cells, Index query_stride,
                            bool outputs) {
    if (restart_from(base_spec, spec) == SceneRestart::Full || !reusable(base, spec, storage))
        return compute_scene(spec, progress, storage, recycle, overview_cells, query_stride,
                             outputs);
    SceneResult r = detail::compute_pieces(spec, progress, storage, recycle, overview_cells,
                                           query_stride, &base, outputs);
    if (spec.merge_words) merge_scene_words(r);
    return r;
}

}  // namespace attn
