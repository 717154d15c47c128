// AttnScope core — the model interface's default for a family without a layer description: the
// gradient methods are refused by name. GPL-3.0-or-later.
#include "attn/models/layer_description.hpp"

#include "attn/models/model.hpp"
#include "attn/util/error.hpp"

namespace attn::model {

std::string no_description(const std::string& family) {
    return "gradient methods need a layer description (Model::describe_layer), not available "
           "for " +
           family;
}

LinearOp linear_op(const blocks::TensorLinear& lin) {
    return {&lin.w, lin.has_bias ? &lin.b : nullptr, false};
}

AttentionOp grouped_attention(const blocks::TensorLinear& q, const blocks::TensorLinear& k,
                              const blocks::TensorLinear& v, const blocks::TensorLinear& o,
                              int heads, int kv_heads, int head_dim) {
    AttentionOp a;
    a.q = linear_op(q);
    a.k = linear_op(k);
    a.v = linear_op(v);
    a.o = linear_op(o);
    a.heads = heads;
    a.kv_heads = kv_heads;
    a.head_dim = head_dim;
    return a;
}

NormOp rms_op(const FloatTensor& w, double eps, blocks::Gain gain) {
    return {NormOp::Kind::Rms, &w, nullptr, eps, gain};
}

LayerDescription Model::describe_layer(int) const {
    throw ArgumentError(no_description(info().display));
}

OutputDescription Model::describe_output() const {
    throw ArgumentError(no_description(info().display));
}

}  // namespace attn::model
