// AttnScope core — a model's padding ids. GPL-3.0-or-later.
#include "attn/models/vocabulary.hpp"

#include <algorithm>
#include <limits>

namespace attn::model {

Index text_vocab(const ModelInfo& info) {
    return info.text_vocab > 0 ? std::min(info.text_vocab, info.vocab) : info.vocab;
}

bool is_padding(const ModelInfo& info, std::int32_t id) {
    return id >= text_vocab(info) && id < info.vocab;
}

Vector without_padding(const ModelInfo& info, Vector logits) {
    const Index from = std::min(text_vocab(info), logits.size());
    logits.tail(logits.size() - from).setConstant(-std::numeric_limits<float>::infinity());
    return logits;
}

Matrix without_padding(const ModelInfo& info, Matrix logits) {
    const Index from = std::min(text_vocab(info), Index(logits.cols()));
    logits.rightCols(logits.cols() - from).setConstant(-std::numeric_limits<float>::infinity());
    return logits;
}

}  // namespace attn::model
