// The call graph of a function library: which library functions each
// function's body calls (by op name, and through func-valued attrs such as
// If's branches, While's cond and body, Case's branches and
// PartitionedCall's f). The function runtime uses it to refuse recursive
// functions before it instantiates them (TensorFlow refuses them too: a
// recursive body would instantiate and run without end), and to give an
// instantiated body only the signatures of what it calls.
#ifndef DFG_LIB_GRAPH_FUNCTION_CALLS_H_
#define DFG_LIB_GRAPH_FUNCTION_CALLS_H_

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lib/base/status.h"
#include "lib/proto/function.pb.h"

namespace dfg {

class FunctionCallGraph {
 public:
  // Reads the calls of every function of `library` (which must outlive this)
  // and finds the functions whose calls lead back to themselves (directly or
  // through others). Linear in the library's size.
  explicit FunctionCallGraph(const tensorflow::FunctionDefLibrary* library);

  // The library's function of that name (the first, as OpLookup), or null.
  const tensorflow::FunctionDef* Find(const std::string& name) const;

  bool IsRecursive(const std::string& function) const {
    return recursive_.contains(function);
  }

  // kUnimplemented with TensorFlow's message for a recursive `function`:
  // "Recursive function calls are not supported. Node {{node n}} inside the
  // body of {{function_node g}} calls function {{function_node f}} which is
  // already present in the call stack:" and the cycle, one call a line;
  // Ok for a function that is not recursive.
  Status CheckNotRecursive(const std::string& function) const;

  // The part of the library that a body whose nodes have ops `ops` needs to
  // type them: the signatures of the functions among them (bodies dropped).
  tensorflow::FunctionDefLibrary CalledSignatures(
      const std::unordered_set<std::string>& ops) const;

 private:
  struct Call {
    int callee;        // index into the library
    std::string node;  // the calling node of the caller's body
  };
  void FindRecursive();

  const tensorflow::FunctionDefLibrary* library_;  // Not owned.
  std::unordered_map<std::string, int> index_;
  std::vector<std::vector<Call>> calls_;  // by caller index
  std::unordered_set<std::string> recursive_;
};

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_FUNCTION_CALLS_H_
