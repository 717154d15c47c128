// AttnScope core — maximum flow (Dinic: blocking flows along breadth-first levels).
// GPL-3.0-or-later.
#include "attn/attribution/max_flow.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <string>

#include "attn/util/error.hpp"

namespace attn::attrib {

namespace {

/// Residual capacity below this is none: sums of float weights leave crumbs of 1e-17, and an
/// augmenting path through one would only loop.
constexpr double kFlowEps = 1e-12;

}  // namespace

FlowGraph::FlowGraph(Index nodes) : out_(std::size_t(nodes)) {}

void FlowGraph::add_edge(Index from, Index to, double capacity) {
    const Index nodes = Index(out_.size());
    if (from < 0 || to < 0 || from >= nodes || to >= nodes || !(capacity >= 0))
        throw ArgumentError("flow graph: edge " + std::to_string(from) + " → " +
                            std::to_string(to) + " of capacity " + std::to_string(capacity) +
                            " is not in a graph of " + std::to_string(nodes) + " nodes");
    if (capacity == 0) return;
    out_[std::size_t(from)].push_back(Index(edges_.size()));
    edges_.push_back({to, capacity, 0.0});
    out_[std::size_t(to)].push_back(Index(edges_.size()));
    edges_.push_back({from, 0.0, 0.0});
}

bool FlowGraph::levels(Index source, Index sink) {
    level_.assign(out_.size(), -1);
    level_[std::size_t(source)] = 0;
    std::queue<Index> q;
    q.push(source);
    while (!q.empty()) {
        const Index v = q.front();
        q.pop();
        for (const Index e : out_[std::size_t(v)]) {
            const Edge& edge = edges_[std::size_t(e)];
            if (level_[std::size_t(edge.to)] < 0 && edge.capacity - edge.flow > kFlowEps) {
                level_[std::size_t(edge.to)] = level_[std::size_t(v)] + 1;
                q.push(edge.to);
            }
        }
    }
    return level_[std::size_t(sink)] >= 0;
}

double FlowGraph::push(Index node, Index sink, double limit) {
    if (node == sink) return limit;
    std::vector<Index>& outs = out_[std::size_t(node)];
    for (Index& i = next_[std::size_t(node)]; i < Index(outs.size()); ++i) {
        const Index e = outs[std::size_t(i)];
        Edge& edge = edges_[std::size_t(e)];
        const double room = edge.capacity - edge.flow;
        if (room <= kFlowEps || level_[std::size_t(edge.to)] != level_[std::size_t(node)] + 1)
            continue;
        const double pushed = push(edge.to, sink, std::min(limit, room));
        if (pushed > 0) {
            edge.flow += pushed;
            edges_[std::size_t(e ^ 1)].flow -= pushed;
            return pushed;
        }
    }
    return 0;
}

double FlowGraph::max_flow(Index source, Index sink) {
    const Index nodes = Index(out_.size());
    if (source < 0 || sink < 0 || source >= nodes || sink >= nodes)
        throw ArgumentError("flow graph: node outside the graph");
    for (Edge& e : edges_)
        e.flow = 0;
    if (source == sink) return 0;
    double total = 0;
    while (levels(source, sink)) {
        next_.assign(out_.size(), 0);
        while (const double f = push(source, sink, std::numeric_limits<double>::infinity()))
            total += f;
    }
    return total;
}

}  // namespace attn::attrib
