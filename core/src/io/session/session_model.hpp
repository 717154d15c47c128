// AttnScope core — a session's "model" key: the folder the scene runs, decoder-only or
// encoder–decoder (private header). GPL-3.0-or-later.
#pragma once

#include "attn/io/session/session.hpp"
#include "session_json.hpp"

namespace attn::io::detail {

/// SESSION's "model" object, or null when it runs no model.
ojson model_json(const Session& session);

/// Reads the "model" object J but its path into SESSION (identity, the run's controls; for an
/// encoder–decoder, session.seq2seq).
void read_model(const JsonReader& r, const ojson& j, Session& session);

}  // namespace attn::io::detail
