// AttnScope core — Marian's config.json. GPL-3.0-or-later.
#include "config.hpp"

#include "../config_json.hpp"

namespace attn::model::marian {

MarianConfig read_config(const std::string& dir) {
    const std::string path = dir + "/config.json";
    const nlohmann::json j = read_config_json(path);
    MarianConfig c;
    Seq2SeqInfo& i = c.info;
    i.family = "marian";
    i.display = "Marian";
    i.folder = dir;
    i.d_model = config_integer(j, "d_model", path);
    i.encoder_layers = config_integer(j, "encoder_layers", path);
    i.decoder_layers = config_integer(j, "decoder_layers", path);
    i.heads = config_integer(j, "encoder_attention_heads", path);
    if (config_integer(j, "decoder_attention_heads", path) != i.heads)
        throw FormatError(path +
                          ": encoder_attention_heads and decoder_attention_heads differ "
                          "(AttnScope runs Marian models with one head count)");
    if (i.d_model % i.heads)
        throw FormatError(path + ": d_model " + std::to_string(i.d_model) +
                          " is not a multiple of the " + std::to_string(i.heads) + " heads");
    i.head_dim = i.d_model / i.heads;
    c.encoder_ffn = config_integer(j, "encoder_ffn_dim", path);
    c.decoder_ffn = config_integer(j, "decoder_ffn_dim", path);
    i.source_vocab = config_integer(j, "vocab_size", path);
    i.vocab = config_integer(j, "decoder_vocab_size", path, i.source_vocab);
    c.max_positions = config_integer(j, "max_position_embeddings", path, 512);
    i.max_positions = c.max_positions;
    c.scale_embedding = config_flag(j, "scale_embedding", path, false);
    c.shared_embeddings = config_flag(j, "share_encoder_decoder_embeddings", path, true);
    c.tied = config_flag(j, "tie_word_embeddings", path, true);
    if (config_flag(j, "normalize_before", path, false))
        throw FormatError(path + ": normalize_before is true; Marian runs post-norm blocks only");
    i.pad = config_token_id(j, "pad_token_id", path, -1);
    i.eos = config_token_id(j, "eos_token_id", path, 0);
    i.decoder_start = config_token_id(j, "decoder_start_token_id", path, i.pad);
    if (j.contains("bad_words_ids") && !j["bad_words_ids"].is_null()) {
        const nlohmann::json& bad = j["bad_words_ids"];
        if (!bad.is_array())
            throw FormatError(path + ": \"bad_words_ids\" must be a list of lists of token ids");
        for (const nlohmann::json& words : bad) {
            if (!words.is_array())
                throw FormatError(path +
                                  ": \"bad_words_ids\" must be a list of lists of token ids");
            // A banned sequence of several tokens would need the search to look back; one
            // token (what opus-mt bans: its <pad>) is left out of every extension.
            if (words.size() == 1 && words[0].is_number_integer() &&
                words[0].get<long long>() >= 0 && words[0].get<long long>() < i.vocab)
                i.banned.push_back(std::int32_t(words[0].get<long long>()));
        }
    }
    if (c.shared_embeddings && i.vocab != i.source_vocab)
        throw FormatError(path + ": shared embeddings but decoder_vocab_size " +
                          std::to_string(i.vocab) + " differs from vocab_size " +
                          std::to_string(i.source_vocab));
    for (const std::int32_t id : {i.pad, i.eos, i.decoder_start})
        if (id >= i.vocab)
            throw FormatError(path + ": token id " + std::to_string(id) +
                              " is past the decoder's vocabulary of " + std::to_string(i.vocab));
    const std::string act =
        j.contains("activation_function") && j["activation_function"].is_string()
            ? j["activation_function"].get<std::string>()
            : std::string("gelu");
    if (!blocks::activation_from_name(act, c.act))
        throw FormatError(path + ": activation_function \"" + act + "\" is not supported");
    i.scales_scores = true;
    return c;
}

}  // namespace attn::model::marian
