// AttnScope core — maximum flow in a graph of real capacities (Dinic's algorithm).
// GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/util/types.hpp"

namespace attn::attrib {

/// A directed graph with real, non-negative capacities and its maximum flow.
class FlowGraph {
  public:
    /// NODES nodes, numbered from 0, and no edge.
    explicit FlowGraph(Index nodes);
    /// Adds an edge FROM → TO of CAPACITY (≥ 0; an edge of 0 is skipped).
    void add_edge(Index from, Index to, double capacity);
    /// The maximum flow from SOURCE to SINK (0 when they are the same node). The graph's
    /// capacities are left as they were, so it can be asked again for other nodes.
    double max_flow(Index source, Index sink);

  private:
    struct Edge {
        Index to;
        double capacity, flow;
    };
    bool levels(Index source, Index sink);
    double push(Index node, Index sink, double limit);
    std::vector<Edge> edges_;  ///< edge e and its reverse e ^ 1
    std::vector<std::vector<Index>> out_;
    std::vector<Index> level_, next_;
};

}  // namespace attn::attrib
