// AttnScope core — the two BertViz layouts of an .npz: a sentence pair split at
// `sentence_b_start`, and an encoder–decoder model's three attentions (see npz_members.hpp).
// GPL-3.0-or-later.
#include <cmath>
#include <utility>

#include "attn/io/numpy/numpy_attention.hpp"
#include "npz_members.hpp"

namespace attn::io::detail {

namespace {

/// Rows `rows` × columns `cols` of every matrix of c, as a new component named `name`.
AttentionComponent block(const AttentionComponent& c, std::string name, Index r0, Index nr,
                         Index c0, Index nc) {
    AttentionComponent b;
    b.name = std::move(name);
    b.layers = c.layers;
    b.heads = c.heads;
    b.are_scores = c.are_scores;
    b.d_k = c.d_k;
    b.q_tokens.assign(c.q_tokens.begin() + r0, c.q_tokens.begin() + r0 + nr);
    b.k_tokens.assign(c.k_tokens.begin() + c0, c.k_tokens.begin() + c0 + nc);
    for (const Matrix& m : c.mats)
        b.mats.push_back(m.block(r0, c0, nr, nc));
    return b;
}

}  // namespace

std::vector<std::string> read_npz_tokens(const NpzMemberMap& m, const std::string& key,
                                         const std::string& name) {
    const std::string where = name + ": " + key + ".npy";
    NpyView v(m.at(key), where);
    if (v.header().shape.size() != 1)
        fail(where,
             "expected a 1-D array of tokens, got " + detail::shape_string(v.header().shape));
    auto tokens = v.to_strings();
    if (tokens.empty()) fail(where, "holds zero tokens");
    return tokens;
}

void check_npz_tokens(const std::vector<std::string>& tokens, Index expected,
                      const std::string& what, const std::string& name) {
    if (static_cast<Index>(tokens.size()) != expected)
        fail(name, what + " holds " + std::to_string(tokens.size()) +
                       " tokens but the matrices have " + std::to_string(expected) +
                       (what == "key_tokens" ? " columns" : " rows"));
}

bool has_encoder_decoder(const NpzMemberMap& members) {
    return members.count("encoder_attention") || members.count("decoder_attention") ||
           members.count("cross_attention");
}

void add_encoder_decoder(NpzMemberMap& members, const std::string& name, float d_k,
                         AttentionData& data) {
    std::vector<std::string> enc, dec;
    if (members.count("encoder_tokens")) enc = read_npz_tokens(members, "encoder_tokens", name);
    if (members.count("decoder_tokens")) dec = read_npz_tokens(members, "decoder_tokens", name);
    // BertViz's names and order; the cross-attention's queries are the decoder's tokens.
    const struct {
        const char* key;
        const char* title;
        std::vector<std::string>* q;
        std::vector<std::string>* k;
    } parts[] = {{"encoder_attention", "Encoder", &enc, &enc},
                 {"decoder_attention", "Decoder", &dec, &dec},
                 {"cross_attention", "Cross", &dec, &enc}};
    for (const auto& p : parts) {
        if (!members.count(p.key)) continue;
        const std::string where = name + ": " + p.key + ".npy";
        NpyView v(members[p.key], where);
        AttentionComponent c = component_from_npy(v, p.title, false, nullptr);
        check_weights(c, where);
        members.erase(p.key);
        c.d_k = d_k;
        const Index nq = c.mats[0].rows(), nk = c.mats[0].cols();
        const auto label = [&](std::vector<std::string>* tokens, Index n, bool rows) {
            const std::string which = tokens == &enc ? "encoder_tokens" : "decoder_tokens";
            if (tokens->empty()) return;  // positions 0…n−1, as component_from_npy set them
            if (static_cast<Index>(tokens->size()) != n)
                fail(name, std::string(p.key) + " has " + std::to_string(n) +
                               (rows ? " query rows" : " key columns") + " but " + which +
                               " holds " + std::to_string(tokens->size()) + " tokens");
            (rows ? c.q_tokens : c.k_tokens) = *tokens;
        };
        label(p.q, nq, true);
        label(p.k, nk, false);
        data.components.push_back(std::move(c));
    }
    // Without tokens the sides still have to agree: the cross-attention's queries are the
    // decoder's tokens, its keys the encoder's.
    const AttentionComponent* found[3] = {};
    for (const AttentionComponent& c : data.components)
        for (int i = 0; i < 3; ++i)
            if (c.name == parts[i].title) found[i] = &c;
    if (found[2] && found[0] && found[2]->mats[0].cols() != found[0]->mats[0].rows())
        fail(name, "cross_attention has " + std::to_string(found[2]->mats[0].cols()) +
                       " key columns but encoder_attention covers " +
                       std::to_string(found[0]->mats[0].rows()) + " encoder tokens");
    if (found[2] && found[1] && found[2]->mats[0].rows() != found[1]->mats[0].rows())
        fail(name, "cross_attention has " + std::to_string(found[2]->mats[0].rows()) +
                       " query rows but decoder_attention covers " +
                       std::to_string(found[1]->mats[0].rows()) + " decoder tokens");
}

void split_sentences(NpzMemberMap& members, const std::string& name, AttentionData& data) {
    const std::string where = name + ": sentence_b_start.npy";
    NpyView v(members.at("sentence_b_start"), where);
    const std::vector<float> vals = v.to_floats();
    if (vals.size() != 1 || vals[0] != std::floor(vals[0]))
        fail(where, "expected one integer (the index of sentence B's first token)");
    Index at = -1;
    for (Index i = 0; i < static_cast<Index>(data.components.size()); ++i)
        if (data.components[static_cast<std::size_t>(i)].name == "attention") at = i;
    if (at < 0)
        fail(name, "holds sentence_b_start but no 'attention' (weights) to split into sentences");
    AttentionComponent& all = data.components[static_cast<std::size_t>(at)];
    if (all.rows)
        fail(name, "'attention' is too long to be split into sentences here (" +
                       std::to_string(all.q_tokens.size()) + " tokens)");
    const Index n = all.mats[0].rows();
    if (all.mats[0].cols() != n)
        fail(name, "sentence_b_start needs self-attention, but 'attention' is " +
                       std::to_string(n) + "×" + std::to_string(all.mats[0].cols()));
    // Compared as a float first: casting one beyond Index's range would be undefined.
    if (!(vals[0] >= 1.f && vals[0] < static_cast<float>(n)))
        fail(where, "sentence B would start at token " +
                        (std::abs(vals[0]) < 1e15f ? std::to_string(static_cast<long long>(vals[0]))
                                                   : std::to_string(vals[0])) +
                        " of " + std::to_string(n) + " (expected 1 … " + std::to_string(n - 1) +
                        ")");
    const Index b = static_cast<Index>(vals[0]);
    all.name = "all";
    const Index nb = n - b;
    // BertViz's order: All, A → A, B → B, A → B, B → A.
    std::vector<AttentionComponent> parts;
    parts.push_back(block(all, "aa", 0, b, 0, b));
    parts.push_back(block(all, "bb", b, nb, b, nb));
    parts.push_back(block(all, "ab", 0, b, b, nb));
    parts.push_back(block(all, "ba", b, nb, 0, b));
    data.components.insert(data.components.begin() + at + 1, std::make_move_iterator(parts.begin()),
                           std::make_move_iterator(parts.end()));
    data.default_component = at;
}

}  // namespace attn::io::detail
