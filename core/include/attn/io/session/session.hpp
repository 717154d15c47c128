// AttnScope core — the session file: a versioned JSON document holding a whole scene.
// GPL-3.0-or-later. The format is documented in docs/session-format.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/models/model_identity.hpp"
#include "attn/models/seq2seq.hpp"
#include "attn/scene/scene.hpp"

namespace attn::io {

/// Value of the "format" key of every session file.
inline constexpr const char* kSessionFormat = "attnscope-session";
/// The session version this build writes and the newest it reads.
inline constexpr int kSessionVersion = 1;

/// The run of an encoder–decoder a session holds (model_path names its folder; scene.text is
/// its source sentence, spec.layer the layer shown).
struct Seq2SeqSession {
    model::Component component = model::Component::Cross;  ///< the attention shown
    std::string target;                                    ///< the decoder's sentence
    /// A translation's ids (no start token), run instead of TARGET's encoding while not empty
    /// (re-encoding the decoded text may split it otherwise).
    std::vector<std::int32_t> target_ids;
    model::Seq2SeqControls controls;  ///< scaling, ablations and knockouts
    bool operator==(const Seq2SeqSession&) const = default;
};

/// A session: the scene, where its loaded data came from, and the app's own state.
struct Session {
    SceneSpec spec;         ///< every parameter; spec.data is filled by a load only when embedded
    std::string data_path;  ///< attention file to reload ("" = none; default spec.data->source),
                            ///< relative to the session file's folder unless absolute
    std::string data_absolute_path;  ///< where the data was when saved: the fallback when
                                     ///< data_path does not resolve ("" = none)
    bool embed_data = false;         ///< write spec.data's matrices into the session itself
    /// A model folder the scene runs (default spec.model->dir; "" = none): the app opens it,
    /// a relative path taken relative to the session file's folder (as data_path).
    std::string model_path;
    /// What that folder held when saved (model.identity; none in older sessions). Written from
    /// spec.model when the scene runs one, else as given; the app compares it with the folder.
    std::optional<model::ModelIdentity> model_identity;
    /// Set when model_path is an encoder–decoder: its run, which the app reopens (none: a
    /// decoder-only model, or no model).
    std::optional<Seq2SeqSession> seq2seq;
    std::string views = "{}";  ///< opaque JSON object of the app (views, playground, selection)
};

/// Serialises a session as pretty-printed JSON with a fixed key order; floats round-trip
/// exactly. Throws FormatError when `views` is not a JSON object.
std::string session_to_json(const Session& session);

/// Parses a session; a broken file, a wrong "format" or a newer "version" throws FormatError
/// naming the file and the JSON path.
Session parse_session(std::string_view text, const std::string& name);

/// Whether JSON text declares itself a session ("format": "attnscope-session"); never throws.
bool looks_like_session(std::string_view text);

/// The data file of a session loaded from session_path: a relative data_path is taken relative
/// to the session file's directory; "" when the session has no data.
std::string resolved_data_path(const std::string& session_path, const Session& session);

/// The model folder of a session loaded from session_path: a relative model_path is taken
/// relative to the session file's directory; "" when the session runs no model.
std::string resolved_model_path(const std::string& session_path, const Session& session);

/// data_path for a session written to session_path: `data` relative to the session's folder
/// (with "../" as needed), so the two can move together; absolute only when `data` is.
/// Both paths absolute or both relative to the same folder; '/' separators.
std::string relative_data_path(const std::string& session_path, const std::string& data);

/// Writes a session atomically (temporary file + rename).
void save_session(const std::string& path, const Session& session);

/// Loads a session file.
Session load_session(const std::string& path);

}  // namespace attn::io
