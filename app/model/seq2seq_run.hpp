// AttnScope — one run of an encoder–decoder as the window and `attnscope render` show it: the
// source encoded, the target typed or translated, the teacher-forced attention as loaded data.
// GPL-3.0-or-later.
#pragma once

#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attn/generate/translate.hpp"
#include "attn/models/seq2seq.hpp"
#include "attn/scene/scene.hpp"

/// What to run: SOURCE, and TARGET's text, or (translate) the model's own translation.
struct Seq2SeqInput {
    std::string source, target;
    /// The target's ids when they are a translation's output (re-encoding its decoded text may
    /// split it otherwise): used instead of TARGET's encoding while not empty.
    std::vector<std::int32_t> targetIds;
    bool translate = false;  ///< translate SOURCE first (greedy, or beam search of options.beam)
    attn::gen::TranslateOptions options;
};

/// What a run gave: the attention of the teacher-forced run and, after a translation, its
/// output.
struct Seq2SeqOutcome {
    std::shared_ptr<const attn::AttentionData> data;  ///< Encoder, Decoder and Cross
    std::vector<std::int32_t> sourceIds, decoderIds;  ///< decoderIds: the start token, then …
    std::vector<std::int32_t> output;  ///< the translation's ids (no start token), if translated
    std::string text;                  ///< the translation decoded, special tokens left out
    bool translated = false, finished = false;
};

/// The open encoder–decoder and the sentences its Translation dock holds: what the
/// Interventions tab runs.
struct Seq2SeqSubject {
    std::shared_ptr<const attn::model::Seq2SeqFolder> folder;
    Seq2SeqInput input;
};

/// The decoder's inputs for INPUT's target on FOLDER: the start token, then TARGETIDS when
/// given, else the target's encoding (throws attn::ArgumentError for an empty target).
std::vector<std::int32_t> seq2seqDecoderIds(const attn::model::Seq2SeqFolder& folder,
                                            const Seq2SeqInput& input);

/// Whether DIR's config.json names an encoder–decoder; false when it cannot be read (opening it
/// as a decoder-only model then names the problem).
bool isSeq2SeqFolder(const std::string& dir);

/// Runs INPUT on FOLDER (any thread; throws attn::Error with the user's message). An empty
/// target without translate is refused.
Seq2SeqOutcome runSeq2Seq(const attn::model::Seq2SeqFolder& folder, const Seq2SeqInput& request);

/// BASE showing OUTCOME's attention: the component and layer kept when BASE showed a run of the
/// same folder (the user's pick survives a new sentence), else the cross-attention's first layer.
attn::SceneSpec seq2seqSpec(const attn::SceneSpec& base, const Seq2SeqOutcome& outcome);

/// "PART.L.H,…" (PART encoder, decoder or cross; spaces allowed around items) as HEADS; returns
/// the first item that is none, or "" when every one parsed.
QString parseSeq2SeqHeads(const QString& text, std::vector<attn::model::Site>* heads);

/// "PART.L.H:Q>K,…" (Q a target or source position, '*' every query) as KNOCKOUTS; returns the
/// first item that is none, or "" when every one parsed.
QString parseSeq2SeqKnockouts(const QString& text, std::vector<attn::model::Knockout>* knockouts);

/// HEADS as parseSeq2SeqHeads reads them ("cross.1.0, encoder.0.2").
QString seq2seqHeadsText(const std::vector<attn::model::Site>& heads);
