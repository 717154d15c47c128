// AttnScope — the Influence tab on an encoder–decoder's run: which run the scene shows (the
// Translation dock records it) and its attribution (core's attribute_seq2seq) drawn as the
// tab's result, one part (encoder, decoder or cross-attention) in the per-head maps.
// GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <memory>
#include <vector>

#include "attn/attribution/seq2seq_attribution.hpp"
#include "attn/models/seq2seq.hpp"
#include "attn/scene/scene.hpp"
#include "model/influence_compute.hpp"
#include "model/seq2seq_run.hpp"

class Scene;

/// The encoder–decoder run a scene shows: the dock sets it with each run it delivers.
class Seq2SeqShown : public QObject {
    Q_OBJECT
  public:
    struct Run {
        std::shared_ptr<const attn::model::Seq2SeqFolder> folder;
        std::shared_ptr<const attn::AttentionData> data;  ///< what the scene's spec loads
        std::vector<std::int32_t> source, target;         ///< target: the decoder's inputs
        /// What runs it again: its sentences (a translation's text and ids), its controls.
        Seq2SeqInput input;
    };
    /// SCENE's record (created on first use, a child of the scene).
    static Seq2SeqShown* of(Scene* scene);
    /// Records RUN (the last few are kept: undo brings their scenes back).
    void set(Run run);
    /// The run SPEC shows, or null when it shows something else.
    const Run* matching(const attn::SceneSpec& spec) const;

  private:
    explicit Seq2SeqShown(Scene* scene);
    std::vector<Run> runs_;
};

namespace influence {

/// An encoder–decoder's attribution of one prediction and what the tab draws around it.
struct Seq2SeqNumbers {
    attn::attrib::AttributionResult core;
    QStringList source, target;  ///< drawable tokens
    QString targetText;
    int encoderLayers = 0, decoderLayers = 0, heads = 0;
    int steps = 32;
    /// The kTop likeliest tokens at every target position.
    std::vector<std::array<std::int32_t, kTop>> topIds;
    std::vector<std::array<float, kTop>> topProbabilities;
    std::vector<QStringList> topTexts;
    attn::model::Seq2SeqRun run;  ///< the teacher-forced run (its weights: the attention rows)
};

/// The methods defined for an encoder–decoder on RUN for TARGET (position counted from the
/// first source token, as Result's), with integrated gradients of STEPS.
Seq2SeqNumbers computeSeq2Seq(const Seq2SeqShown::Run& run, const Target& target, int steps,
                              attn::Progress* progress);

/// NUMBERS as the tab's result, PART's heads in the per-head maps.
Result seq2seqResult(const Seq2SeqNumbers& numbers, attn::model::Component part);

}  // namespace influence
