// AttnScope — an encoder–decoder's run in a session: what is saved of it, and how a session
// opens it again. GPL-3.0-or-later.
#pragma once

#include <memory>
#include <string>

#include "attn/io/session/session.hpp"
#include "model/seq2seq_influence.hpp"
#include "model/seq2seq_run.hpp"

namespace fileio {

/// What a session records of RUN, the encoder–decoder run SPEC shows: the component and
/// sentences shown and the run's controls (spec.layer and spec.text are the session's own).
attn::io::Seq2SeqSession seq2seqSession(const Seq2SeqShown::Run& run, const attn::SceneSpec& spec);

/// A session's encoder–decoder run, opened again.
struct ReopenedSeq2Seq {
    std::shared_ptr<const attn::model::Seq2SeqFolder> folder;
    Seq2SeqInput input;  ///< as saved: scene.text, the target (and a translation's ids), controls
    Seq2SeqOutcome outcome;
};

/// Opens the encoder–decoder of SESSION (read from SESSIONPATH; session.seq2seq set) and runs it
/// as saved; SPEC becomes its attention showing the saved component and layer. Throws
/// attn::FormatError naming the session and the folder when the folder is gone, is no
/// encoder–decoder any more, or lacks the layer or a head the session names.
ReopenedSeq2Seq reopenSeq2Seq(const std::string& sessionPath, const attn::io::Session& session,
                              attn::SceneSpec& spec);

}  // namespace fileio
