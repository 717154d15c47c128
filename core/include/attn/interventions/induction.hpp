// AttnScope core — the induction test (random tokens repeated twice) and the search for heads
// whose attention looks like a given pattern. GPL-3.0-or-later.
// The methods and their formulas are in docs/interventions.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/models/run.hpp"

namespace attn::interv {

/// A sequence of random tokens repeated twice, after an optional BOS.
struct InductionSequence {
    std::vector<std::int32_t> ids;
    Index start = 0;  ///< position of the first random token (1 after a BOS, else 0)
    Index half = 0;   ///< random tokens in each half
};

/// HALF tokens drawn uniformly from [0, VOCAB) with attn::Rng(SEED), then the same HALF again;
/// BOS, when given, first (TransformerLens's test). Throws ArgumentError when HALF < 2 or VOCAB
/// < 2.
InductionSequence induction_sequence(int vocab, Index half, std::uint64_t seed,
                                     std::optional<std::int32_t> bos = {});

/// Each head's induction score on RUN of SEQ: the mean over the second half's queries i of the
/// weight on key i − half + 1, the token after the query's earlier occurrence. [layers, heads].
Matrix induction_scores(const model::Run& run, const InductionSequence& seq);

/// One head's likeness to a pattern.
struct HeadMatch {
    int layer = 0, head = 0;
    double score = 0;  ///< cosine similarity of the head's weights and the pattern, in [−1, 1]
};

/// Every head of RUN ranked by the cosine similarity of its weights to PATTERN (n × n) over
/// the cells ALLOWED holds non-zero (none given: the keys each query may see under the run's
/// own mask, i.e. the causal triangle for a decoder), best first, ties by layer and head. Throws
/// ArgumentError when PATTERN (or ALLOWED) is not n × n or the pattern is zero on every cell.
std::vector<HeadMatch> rank_heads(const model::Model& model, const model::Run& run,
                                  const Matrix& pattern, const Matrix* allowed = nullptr);

}  // namespace attn::interv
