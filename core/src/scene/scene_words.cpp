// AttnScope core — a computed scene with its sub-word pieces merged into words.
// GPL-3.0-or-later.
#include <string>
#include <utility>

#include "attn/scene/scene.hpp"
#include "attn/tokenizers/words.hpp"
#include "attn/util/error.hpp"

namespace attn {

void merge_scene_words(SceneResult& r) {
    r.q_words = word_groups(r.q_tokens);
    r.k_words = word_groups(r.k_tokens);
    if (!r.q_words.merges() && !r.k_words.merges()) return;
    if (r.storage == Storage::Streamed)
        throw ArgumentError("Merging sub-words into words needs every weight of the " +
                            std::to_string(r.q_tokens.size()) + " × " +
                            std::to_string(r.k_tokens.size()) +
                            " tokens, and this scene is too long to hold them: turn the merge "
                            "off, or use fewer tokens.");
    for (std::size_t h = 0; h < r.heads.size(); ++h) {
        HeadResult& head = r.heads[h];
        HeadResult words;  // per-piece scores have no per-word meaning: only weights remain
        words.weights = merge_words(head.weights, r.q_words, r.k_words);
        // A word's row is empty only when every one of its pieces saw no key.
        words.empty_rows.assign(static_cast<std::size_t>(r.q_words.size()), 1);
        for (std::size_t t = 0; t < r.q_words.group_of.size(); ++t)
            if (t >= head.empty_rows.size() || head.empty_rows[t] == 0)
                words.empty_rows[static_cast<std::size_t>(r.q_words.group_of[t])] = 0;
        static_cast<ScoreStages&>(words) = head;  // the stages the pieces' scores went through
        r.stats[h] = weights_stats(words.weights);
        head = std::move(words);
    }
    r.q_pieces = std::exchange(r.q_tokens, r.q_words.words);
    r.k_pieces = std::exchange(r.k_tokens, r.k_words.words);
    r.has_scores = false;
    r.merged_words = true;
    r.storage = Storage::Stages;
    r.has_vectors = false;
    r.has_qk = false;
    r.X = r.Xkv = r.Q = r.K = r.V = r.output = Matrix();
    r.head_scores.clear();
    r.visible = BoolMatrix();
    r.mask = MaskSpec{};
    r.preview_stride = 1;
}

}  // namespace attn
