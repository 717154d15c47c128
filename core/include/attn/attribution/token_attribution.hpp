// AttnScope core — every token attribution of one prediction, by name: what `attnscope
// attribute` writes. GPL-3.0-or-later. The methods are in docs/attribution.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/util/progress.hpp"

namespace attn::attrib {

/// What to explain and how.
struct AttributionRequest {
    std::optional<Index> position;       ///< P; none: the last position
    std::optional<std::int32_t> target;  ///< t; none: the argmax of the logits at P
    std::vector<std::string> methods;    ///< output names (method_names()); empty: every one built
    int steps = 32;                      ///< M of integrated gradients
    int faithfulness = -1;               ///< K of the erasure curves; < 0: none
    model::RunControls controls;         ///< the run explained, as changed by its controls
};

/// One output array: float32, row-major.
struct NamedArray {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::vector<float> values;
};

/// The explained prediction and the methods' arrays.
struct AttributionResult {
    Index position = 0;
    std::int32_t target = 0;
    double logit = 0;                ///< the target's logit at P in the run
    std::vector<NamedArray> arrays;  ///< in method_names() order, then faith_*, agreement
    std::vector<std::string> agreement_methods;  ///< the rows of "agreement" (with faithfulness)
    /// Each token-level score at P the erasure curves rank by ("attention", when the run was
    /// recorded — faithfulness or a method that reads it: the last layer's mean row P, then the
    /// gradient methods, ALTI rollout, flow and rollout rows), by name.
    std::vector<std::pair<std::string, std::vector<double>>> token_scores;
};

/// Every method of issue #39 by its output name, in the table's order.
const std::vector<std::string>& method_names();

/// Empty when METHOD is built; else why not ("saliency needs the reverse pass, not built yet"),
/// or that no method has that name.
std::string unavailable(const std::string& method);

/// What an attribution computes, for the work limit.
struct AttributionWork {
    std::vector<std::string> methods;  ///< output names
    int steps = 32;                    ///< M of integrated gradients
    bool flow_one_row = false;         ///< attention_flow of row P alone (the Influence tab)
    bool optional = false;             ///< the methods were chosen: the refusal says leave one out
};

/// Empty when WORK on N tokens of a model like INFO stays under the limit (2·10¹² operations,
/// about an hour of one core), else the refusal naming the method, the tokens, the operations
/// and the way out: one rule for `attnscope attribute`, batch and the Influence tab.
std::string work_refusal(const model::ModelInfo& info, Index n, const AttributionWork& work);

/// Empty when MODEL can compute METHOD; else why not: no such method, or the family's layers
/// lack a step the reverse pass needs (the family's own refusal, naming the step).
std::string unavailable_for(const model::Model& model, const std::string& method);

/// The methods of REQUEST on the run of IDS through MODEL. Throws ArgumentError for a method
/// that is unknown or not built (naming it), a position or target outside the run; PROGRESS may
/// cancel.
AttributionResult attribute_tokens(const model::Model& model, const std::vector<std::int32_t>& ids,
                                   const AttributionRequest& request, Progress* progress = nullptr);

}  // namespace attn::attrib
