// CutLongEdges: dot spends its time on the virtual nodes of long edges (an
// unrolled RNN's shared weights reach across hundreds of ranks); drawing the
// source again beside a far consumer keeps both the layout time and the
// picture in bounds.
#include <algorithm>
#include <cstdlib>
#include <map>

#include "lib/dot/dot_model.h"

namespace dfg::dot_internal {
namespace {

// dot's ranks, roughly: longest path from the sources over the edges that
// constrain the ranking, then each source moved down to just above its
// nearest consumer (where network simplex puts it). Nodes on a cycle keep
// the rank their processed inputs give.
std::vector<int> EstimateRanks(const DotView& view) {
  const int n = static_cast<int>(view.nodes.size());
  std::vector<std::vector<int>> succ(n);
  std::vector<int> in_degree(n, 0);
  for (const ViewEdge& e : view.edges) {
    if (e.kind == EdgeKind::kBack || e.src == e.dst) continue;
    succ[e.src].push_back(e.dst);
    ++in_degree[e.dst];
  }
  std::vector<int> rank(n, 0), order;
  order.reserve(n);
  std::vector<int> pending = in_degree;
  for (int v = 0; v < n; ++v) {
    if (pending[v] == 0) order.push_back(v);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    int v = order[i];
    for (int w : succ[v]) {
      rank[w] = std::max(rank[w], rank[v] + 1);
      if (--pending[w] == 0) order.push_back(w);
    }
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int v = *it;
    if (in_degree[v] != 0 || succ[v].empty()) continue;
    int nearest = rank[succ[v][0]];
    for (int w : succ[v]) nearest = std::min(nearest, rank[w]);
    rank[v] = std::max(0, nearest - 1);
  }
  return rank;
}

}  // namespace

int CutLongEdges(DotView& view, int budget, int min_span) {
  std::vector<int> rank = EstimateRanks(view);
  const int edges = static_cast<int>(view.edges.size());
  std::vector<int> span(edges);
  long total = 0;  // virtual nodes
  for (int k = 0; k < edges; ++k) {
    const ViewEdge& e = view.edges[k];
    span[k] = std::abs(rank[e.dst] - rank[e.src]);
    total += std::max(span[k] - 1, 0);
  }
  if (total <= budget) return 0;
  std::vector<int> order(edges);
  for (int k = 0; k < edges; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return span[a] > span[b]; });
  std::map<std::pair<int, int>, int> links;  // (source, anchor) -> link node
  int cut = 0;
  for (int k : order) {
    if (total <= budget || span[k] <= min_span) break;
    ViewEdge& e = view.edges[k];
    auto [it, added] = links.emplace(std::make_pair(e.src, e.dst),
                                     static_cast<int>(view.nodes.size()));
    if (added) {
      ViewNode link = view.nodes[e.src];
      link.link_to = e.src;
      link.anchor = e.dst;
      view.nodes.push_back(std::move(link));
    }
    e.src = it->second;
    if (e.kind == EdgeKind::kBack) e.kind = EdgeKind::kData;  // now it may rank
    total -= span[k] - 1;
    ++cut;
  }
  return cut;
}

}  // namespace dfg::dot_internal
