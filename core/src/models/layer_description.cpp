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
