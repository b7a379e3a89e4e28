// Internal to lib/place: TensorFlow's ColocationGraph. A union-find over the
// op nodes (union by rank, path compression, the same roots TensorFlow
// picks); each group root holds the merged requested, assigned and resource
// device specs, the device types every member supports and the cached list
// of candidate devices.
#ifndef DFG_LIB_PLACE_COLOCATION_H_
#define DFG_LIB_PLACE_COLOCATION_H_

#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/device_name.h"
#include "lib/graph/graph.h"
#include "lib/place/device_set.h"
#include "lib/place/kernel_support.h"
#include "lib/place/place.h"
#include "lib/place/place_graph.h"

namespace dfg::place_internal {

// Device specs interned by value; id 0 is the empty spec.
class SpecTable {
 public:
  SpecTable();
  int Intern(const ParsedDeviceName& spec);
  const ParsedDeviceName& operator[](int id) const { return specs_[id]; }
  // ParsedNameToString of the spec.
  const std::string& str(int id) const { return strings_[id]; }

 private:
  std::vector<ParsedDeviceName> specs_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, int> ids_;
};

struct Member {
  TypeMask types = 0;
  int parent = -1;
  int size = 1;
  int requested = 0;  // spec ids; requested specializes assigned and resource
  int assigned = 0;
  int resource = 0;
  int candidates = -1;  // index into the candidate lists; -1 = not computed
  int placed_by = -1;   // the member whose assignment limited the group
  uint8_t rank = 0;
  bool soft = false;  // the candidates come from soft placement
};

// How a node came to share a group, for --explain.
enum class JoinKind { kNone, kClass, kRefEdge, kResourceEdge };
struct Join {
  JoinKind kind = JoinKind::kNone;
  int partner = -1;     // node id
  bool is_src = false;  // for edges: this node produces the ref/resource
  std::string group;    // for kClass: the group name after "loc:@"
};

class ColocationGraph {
 public:
  // `record` keeps what --explain needs (joins, notes).
  ColocationGraph(PlaceGraph& graph, const DeviceSet& devices,
                  KernelSupport* kernels, const PlaceOptions& options,
                  bool record);

  // TensorFlow's ColocationGraph::Initialize: members (kernels, requested,
  // resource and pre-assigned devices), ref/resource edges, `_class` groups,
  // XLA types dropped.
  Status Initialize();

  int FindRoot(int node_id);
  const Member& member(int node_id) const { return members_[node_id]; }
  // The device a node is assigned to (pre-assigned, or placed through
  // LimitToAssignedDevice), or -1.
  int assigned_device(int node_id) const { return assigned_device_[node_id]; }
  const std::vector<int>& op_nodes() const { return graph_.op_nodes(); }

  // The candidate devices of the node's group, best first (TF's
  // GetDevicesForNode, cached on the root). Errors are TF's texts.
  Status GetDevicesForNode(int node, const std::vector<int>** devices);
  // Limits the node's group to `device` (TF's LimitToAssignedDevice).
  Status LimitToAssignedDevice(int node, int device);

  const SpecTable& specs() const { return specs_; }
  const Join& join(int node_id) const;
  // Per node remarks, e.g. a requested device overridden by a ref edge.
  const std::map<int, std::string>& notes() const { return notes_; }
  std::vector<std::string>& warnings() { return warnings_; }

 private:
  Status InitializeMember(int node);
  Status InitializeAssigned(int node, std::string_view name, Member* member);
  Status ColocateResourceAndRefEdges();
  Status ColocateResourceOrRefEdge(int src, int dst, JoinKind kind);
  Status ColocateAllNodes();
  Status ColocateNodeToGroup(std::unordered_map<std::string_view, int>* roots,
                             int node, std::string_view group);
  Status ColocateNodes(int x, int x_root, int y, int y_root);
  Status MergeDeviceNames(Member* target, const Member& other);
  void RecordJoin(int x, int y, JoinKind kind, std::string_view group);

  int RequestedSpec(std::string_view device);  // -1 if malformed
  int Candidates(int spec, TypeMask types);
  int SoftCandidates(int root);
  // TensorFlow's CPU build's note on a missing GPU (colocation_devices.cc).
  std::string NoGpuNote(const ParsedDeviceName& specified) const;
  Status NoCandidatesError(int node, int root);

  std::string DebugInfo(int root);
  std::string MemberDebugString(const Member& m);
  std::string NodeDebugString(int node) const;

  PlaceGraph& graph_;
  const DeviceSet& devices_;
  KernelSupport* kernels_;  // Not owned.
  PlaceOptions options_;
  bool record_;
  ParsedDeviceName local_address_;  // the client device's job/replica/task
  // Nodes with a ref, resource or variant input, in node order.
  std::vector<int> ref_input_nodes_;
  // Per node id, NameFilter::QuickHash of the name (see colocation.cc).
  std::vector<uint32_t> name_hashes_;
  // Nodes with a `_class` list and its strings, in node order.
  std::vector<std::pair<int, std::vector<std::string_view>>> class_attrs_;
  std::map<std::string, std::pair<int, std::string>> unknown_ops_;

  SpecTable specs_;
  std::vector<int> device_spec_;  // by device index
  std::unordered_map<std::string_view, int> requested_specs_;
  std::vector<Member> members_;
  std::vector<int> assigned_device_;              // by node id, -1 = none
  std::deque<std::vector<int>> candidate_lists_;  // stable addresses
  struct CandidateKey {
    int spec;
    TypeMask types;
    bool operator==(const CandidateKey& o) const {
      return spec == o.spec && types == o.types;
    }
  };
  struct CandidateKeyHash {
    size_t operator()(const CandidateKey& k) const {
      return std::hash<uint64_t>()(k.types * 0x9E3779B97F4A7C15ULL ^
                                   static_cast<uint64_t>(k.spec));
    }
  };
  std::unordered_map<CandidateKey, int, CandidateKeyHash> candidate_index_;
  std::vector<int> sorted_devices_;  // device indices, best first

  std::vector<Join> joins_;  // by node id, when recording
  std::map<int, std::string> notes_;
  std::vector<std::string> warnings_;
};

// TensorFlow's AttachDef: "<message>\n\t [[{{node <name>}}]]".
Status AttachNode(const Status& status, std::string_view node_name);

}  // namespace dfg::place_internal

#endif  // DFG_LIB_PLACE_COLOCATION_H_
