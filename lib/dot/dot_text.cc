// agwrite's layout, rule for rule (Graphviz 2.42 cgraph/write.c): the root's
// attribute defaults, then each subgraph (in id order: creation order under
// dot_writer's id discipline) with its local graph attributes, its nodes and
// edges; a node is written where it is first needed (before the first edge
// into it from a node no later than its predecessors), with the attributes
// that differ from the defaults, in name order.
#include "lib/dot/dot_text.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dfg::dot_internal {
namespace {

class TextWriter {
 public:
  explicit TextWriter(Agraph_t* root) : root_(root) {}

  std::string Write() {
    home_.assign(MaxNodeSeq() + 1, root_);
    FindHomes(root_);
    out_ += agisdirected(root_) ? "digraph " : "graph ";
    Canon(agnameof(root_));
    out_ += " {\n";
    level_ = 1;
    WriteDict("graph", AGRAPH, root_, /*local=*/false);
    WriteDict("node", AGNODE, root_, false);
    WriteDict("edge", AGEDGE, root_, false);
    WriteBody(root_);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  uint64_t MaxNodeSeq() const {
    uint64_t max = 0;
    for (Agnode_t* n = agfstnode(root_); n != nullptr; n = agnxtnode(root_, n))
      max = std::max<uint64_t>(max, AGSEQ(n));
    return max;
  }

  // The deepest subgraph holding each node and each edge held by a subgraph
  // (pre-order: a child overwrites its parent).
  void FindHomes(Agraph_t* g) {
    for (Agraph_t* s = agfstsubg(g); s != nullptr; s = agnxtsubg(s)) {
      for (Agnode_t* n = agfstnode(s); n != nullptr; n = agnxtnode(s, n)) {
        home_[AGSEQ(n)] = s;
        for (Agedge_t* e = agfstout(s, n); e != nullptr; e = agnxtout(s, e))
          edge_home_[AGSEQ(e)] = s;
      }
      FindHomes(s);
    }
  }

  Agraph_t* EdgeHome(Agedge_t* e) const {
    auto it = edge_home_.find(AGSEQ(e));
    return it == edge_home_.end() ? root_ : it->second;
  }

  void Indent() { out_.append(level_, '\t'); }

  // cgraph's quoting (agcanonStr needs a refstr to recognise HTML labels).
  void Canon(const char* text) {
    char* s = agstrdup(root_, const_cast<char*>(text));
    out_ += agcanonStr(s);
    agstrfree(root_, s);
  }

  // write_dict: the root's non-empty defaults, or a subgraph's local graph
  // attributes (its dictionary without the view onto its parent's).
  void WriteDict(const char* name, int kind, Agraph_t* g, bool local) {
    std::vector<Agsym_t*> syms;
    if (local) {
      auto* dd = reinterpret_cast<Agdatadict_t*>(
          aggetrec(g, const_cast<char*>("_AG_datadict"), 0));
      if (dd == nullptr) return;
      Dict_t* view = dtview(dd->dict.g, nullptr);
      for (void* s = dtfirst(dd->dict.g); s != nullptr;
           s = dtnext(dd->dict.g, s)) {
        auto* sym = static_cast<Agsym_t*>(s);
        if (sym->defval[0] == '\0' && !sym->print && view != nullptr) {
          Agsym_t* parent = static_cast<Agsym_t*>(dtsearch(view, sym));
          if (parent != nullptr && parent->defval[0] == '\0' && parent->print)
            continue;
        }
        syms.push_back(sym);
      }
      dtview(dd->dict.g, view);
    } else {
      for (Agsym_t* sym = agnxtattr(root_, kind, nullptr); sym != nullptr;
           sym = agnxtattr(root_, kind, sym)) {
        if (sym->defval[0] == '\0' && !sym->print) continue;
        syms.push_back(sym);
      }
    }
    for (size_t i = 0; i < syms.size(); ++i) {
      if (i == 0) {
        Indent();
        out_ += name;
        out_ += " [";
        ++level_;
      } else {
        out_ += ",\n";
        Indent();
      }
      Canon(syms[i]->name);
      out_ += '=';
      Canon(syms[i]->defval);
    }
    if (syms.empty()) return;
    --level_;
    if (syms.size() > 1) {
      out_ += '\n';
      Indent();
    }
    out_ += "];\n";
  }

  void WriteAttrs(void* obj, int kind) {
    int count = 0;
    for (Agsym_t* sym = agnxtattr(root_, kind, nullptr); sym != nullptr;
         sym = agnxtattr(root_, kind, sym)) {
      char* value = agxget(obj, sym);
      if (value == sym->defval) continue;  // agwrite compares refstrs
      if (count++ == 0) {
        out_ += "\t[";
        ++level_;
      } else {
        out_ += ",\n";
        Indent();
      }
      Canon(sym->name);
      out_ += '=';
      Canon(value);
    }
    if (count > 0) {
      out_ += ']';
      --level_;
    }
  }

  bool NonDefault(Agnode_t* n) const {
    for (Agsym_t* sym = agnxtattr(root_, AGNODE, nullptr); sym != nullptr;
         sym = agnxtattr(root_, AGNODE, sym)) {
      if (agxget(n, sym) != sym->defval) return true;
    }
    return false;
  }

  // write_node_test: n belongs to g's body, comes no earlier than `pred`
  // and neither do its predecessors, and has something to say.
  bool NodeTest(Agraph_t* g, Agnode_t* n, uint64_t pred) const {
    if (home_[AGSEQ(n)] != g || AGSEQ(n) < pred) return false;
    for (Agedge_t* e = agfstin(g, n); e != nullptr; e = agnxtin(g, e)) {
      if (AGSEQ(agtail(e)) < pred) return false;
    }
    bool no_edges = agfstin(g, n) == nullptr && agfstout(g, n) == nullptr;
    return no_edges || NonDefault(n);
  }

  void WriteNode(Agnode_t* n) {
    Indent();
    Canon(agnameof(n));
    WriteAttrs(n, AGNODE);
    out_ += ";\n";
  }

  void WriteEdge(Agedge_t* e) {
    Indent();
    Canon(agnameof(agtail(e)));
    out_ += agisdirected(root_) ? " -> " : " -- ";
    Canon(agnameof(aghead(e)));
    WriteAttrs(e, AGEDGE);
    out_ += ";\n";
  }

  void WriteBody(Agraph_t* g) {
    for (Agraph_t* s = agfstsubg(g); s != nullptr; s = agnxtsubg(s)) {
      Indent();
      out_ += "subgraph ";
      Canon(agnameof(s));
      out_ += " {\n";
      ++level_;
      WriteDict("graph", AGRAPH, s, /*local=*/true);
      WriteBody(s);
      --level_;
      Indent();
      out_ += "}\n";
    }
    Agnode_t* prev = nullptr;
    for (Agnode_t* n = agfstnode(g); n != nullptr; n = agnxtnode(g, n)) {
      if (NodeTest(g, n, AGSEQ(n))) WriteNode(n);
      prev = n;
      for (Agedge_t* e = agfstout(g, n); e != nullptr; e = agnxtout(g, e)) {
        if (prev != aghead(e) && NodeTest(g, aghead(e), AGSEQ(n))) {
          WriteNode(aghead(e));
          prev = aghead(e);
        }
        if (EdgeHome(e) == g) WriteEdge(e);
      }
    }
  }

  Agraph_t* root_;
  std::vector<Agraph_t*> home_;  // by node sequence number
  std::unordered_map<uint64_t, Agraph_t*> edge_home_;
  std::string out_;
  int level_ = 0;
};

}  // namespace

std::string WriteDotText(Agraph_t* graph) { return TextWriter(graph).Write(); }

}  // namespace dfg::dot_internal
