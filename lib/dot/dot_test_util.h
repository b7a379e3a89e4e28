// Tests of lib/dot read the DOT they get back through cgraph into a canonical
// form: nodes by name (the tooltip, else the first label line), edges as "a ->
// b" with their attributes, clusters by label with their members.
#ifndef DFG_LIB_DOT_DOT_TEST_UTIL_H_
#define DFG_LIB_DOT_DOT_TEST_UTIL_H_

#include <graphviz/cgraph.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/proto/graph.pb.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg::dot_testing {

inline tensorflow::GraphDef ParseGraph(const std::string& text) {
  return testing::ParseTextProto<tensorflow::GraphDef>(text);
}

struct Drawn {
  // name -> attribute -> value (label, shape, style, fillcolor...).
  std::map<std::string, std::map<std::string, std::string>> nodes;
  // "a -> b" or "a -> b [label=float, style=dashed]", in file order.
  std::vector<std::string> edges;
  // cluster label -> names of the nodes inside it (nested ones included).
  std::map<std::string, std::set<std::string>> clusters;
  std::string rankdir;
  bool has_legend = false;
  std::string legend;  // the legend's HTML label
};

// "a/b\n(Add)" -> "a/b".
inline std::string NameOfLabel(const std::string& label) {
  std::string name;
  for (size_t i = 0; i < label.size(); ++i) {
    if (label[i] == '\\' && i + 1 < label.size()) {
      if (label[i + 1] == 'n') break;
      name += label[++i];
    } else {
      name += label[i];
    }
  }
  return name;
}

inline std::string Attr(void* object, const char* name) {
  char* value = agget(object, const_cast<char*>(name));
  return value == nullptr ? "" : value;
}

// A node's whole name: its tooltip (labels leave scopes out), else its label.
inline std::string NodeName(Agnode_t* n) {
  std::string tooltip = Attr(n, "tooltip");
  return NameOfLabel(tooltip.empty() ? Attr(n, "label") : tooltip);
}

inline void CollectClusters(Agraph_t* graph, Drawn& drawn) {
  for (Agraph_t* sub = agfstsubg(graph); sub != nullptr; sub = agnxtsubg(sub)) {
    std::string name = agnameof(sub);
    if (name.rfind("cluster", 0) == 0) {
      std::set<std::string>& members = drawn.clusters[Attr(sub, "label")];
      for (Agnode_t* n = agfstnode(sub); n != nullptr; n = agnxtnode(sub, n)) {
        members.insert(NodeName(n));
      }
    }
    CollectClusters(sub, drawn);
  }
}

inline Drawn ReadDrawn(const std::string& dot) {
  Drawn drawn;
  Agraph_t* graph = agmemread(dot.c_str());
  REQUIRE(graph != nullptr);
  drawn.rankdir = Attr(graph, "rankdir");
  std::map<Agnode_t*, std::string> names;
  for (Agnode_t* n = agfstnode(graph); n != nullptr; n = agnxtnode(graph, n)) {
    if (std::string(agnameof(n)) == "legend") {
      drawn.has_legend = true;
      drawn.legend = Attr(n, "label");
      continue;
    }
    std::string name = NodeName(n);
    names[n] = name;
    auto& attrs = drawn.nodes[name];
    for (const char* a :
         {"label", "shape", "style", "fillcolor", "fontcolor", "tooltip"}) {
      attrs[a] = Attr(n, a);
    }
  }
  std::vector<std::pair<int, std::string>> edges;
  for (Agnode_t* n = agfstnode(graph); n != nullptr; n = agnxtnode(graph, n)) {
    for (Agedge_t* e = agfstout(graph, n); e != nullptr;
         e = agnxtout(graph, e)) {
      std::string text = names[agtail(e)] + " -> " + names[aghead(e)];
      std::vector<std::string> attrs;
      for (const char* a : {"constraint", "label", "style"}) {
        std::string value = Attr(e, a);
        if (!value.empty()) attrs.push_back(std::string(a) + "=" + value);
      }
      for (size_t i = 0; i < attrs.size(); ++i) {
        text += (i == 0 ? " [" : ", ") + attrs[i];
      }
      if (!attrs.empty()) text += "]";
      edges.emplace_back(static_cast<int>(AGSEQ(e)), text);
    }
  }
  std::sort(edges.begin(), edges.end());
  for (auto& [seq, text] : edges) drawn.edges.push_back(text);
  CollectClusters(graph, drawn);
  agclose(graph);
  return drawn;
}

}  // namespace dfg::dot_testing

#endif  // DFG_LIB_DOT_DOT_TEST_UTIL_H_
