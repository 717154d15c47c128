// AttnScope core — the tokenizer.json models AttnScope runs: BPE, WordPiece and Unigram.
// GPL-3.0-or-later.
#pragma once

#include <array>
#include <mutex>
#include <optional>

#include "parts.hpp"
#include "vocab_sax.hpp"

namespace attn::tok::detail {

/// A vocabulary object {token: id}, ids in [0, kMaxId).
std::unordered_map<std::string, std::int32_t> read_vocab(const Json& v, const Where& w);

/// Byte-pair encoding with the tokenizers library's rules: merges by rank, byte_fallback to
/// <0xNN> tokens, unk_token (fused or not), ignore_merges, continuing_subword_prefix and
/// end_of_word_suffix; a locked cache of words already merged.
class BpeModel final : public Model {
  public:
    /// J's BPE model; VOCAB, when given, is its vocabulary read apart (taken).
    BpeModel(const Json& j, const Where& w, VocabMap* vocab = nullptr);
    void tokenize(std::string_view word, std::vector<std::int32_t>& out) const override;
    const std::unordered_map<std::string, std::int32_t>& vocab() const override { return vocab_; }

  private:
    std::vector<std::int32_t> merge_word(std::string_view word) const;

    std::unordered_map<std::string, std::int32_t> vocab_;
    struct Merge {
        std::int32_t rank, id;
    };
    std::unordered_map<std::uint64_t, Merge> merges_;  // (left id << 32 | right id) → merge
    std::optional<std::int32_t> unk_;
    bool fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false;
    std::string prefix_, suffix_;
    std::array<std::int32_t, 256> byte_ids_{};  // <0xNN> ids, -1 where absent
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<std::int32_t>> cache_;
};

/// WordPiece: greedy longest-match-first with "##" continuations, unk_token for a word it
/// cannot cover or that is longer than max_input_chars_per_word.
class WordPieceModel final : public Model {
  public:
    /// J's WordPiece model; VOCAB as BpeModel's.
    WordPieceModel(const Json& j, const Where& w, VocabMap* vocab = nullptr);
    void tokenize(std::string_view word, std::vector<std::int32_t>& out) const override;
    const std::unordered_map<std::string, std::int32_t>& vocab() const override { return vocab_; }

  private:
    std::unordered_map<std::string, std::int32_t> vocab_;
    std::string unk_token_, prefix_;
    std::size_t max_chars_ = 100;
};

/// Unigram (SentencePiece's model, as T5 and XLM-R files hold it): the best path by Viterbi over
/// the pieces' log-probability scores, as the tokenizers library's encode_optimized; a character
/// no piece covers costs the lowest score less 10 and takes unk_id, runs of them fused into one
/// token, which byte_fallback spells as <0xNN> tokens when all its bytes have one.
class UnigramModel final : public Model {
  public:
    UnigramModel(const Json& j, const Where& w);
    void tokenize(std::string_view word, std::vector<std::int32_t>& out) const override;
    const std::unordered_map<std::string, std::int32_t>& vocab() const override { return vocab_; }

  private:
    /// Each piece's text (a view of its key in vocab_, whose nodes never move), by id.
    std::vector<std::string_view> pieces_;
    /// The ids in the byte order of their pieces: the pieces that start a text are found by
    /// narrowing a range one byte at a time (a trie of sorted ranges, built by one sort).
    std::vector<std::int32_t> sorted_;
    std::unordered_map<std::string, std::int32_t> vocab_;
    std::vector<double> scores_;
    std::optional<std::int32_t> unk_;
    double unk_score_ = 0;
    bool byte_fallback_ = false;
    std::array<std::int32_t, 256> byte_ids_{};  // <0xNN> ids, -1 where absent
};

}  // namespace attn::tok::detail
