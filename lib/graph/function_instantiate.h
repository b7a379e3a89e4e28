// Function instantiation over GraphDef: a library FunctionDef with a call's
// attrs bound becomes a graph of _Arg -> body -> _Retval nodes. The function
// runtime (lib/exec) runs such graphs; the optimizer (lib/optimize) inlines
// them into their callers.
#ifndef DFG_LIB_GRAPH_FUNCTION_INSTANTIATE_H_
#define DFG_LIB_GRAPH_FUNCTION_INSTANTIATE_H_

#include "lib/base/status.h"
#include "lib/proto/function.pb.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

// TensorFlow's InstantiateFunction: the body of `fdef` with `attrs` bound.
// Input arg k becomes _Arg nodes named after the arg (`<arg>_<i>` for list
// args), index = position among all expanded args; each output arg becomes
// _Retval nodes `<ret>_RetVal` (`<ret>_RetVal_<i>` for lists); body inputs
// "arg", "node:out_arg" and "node:out_arg:i" become graph tensor names;
// attr placeholders ("$T") take the call's values. `library` is copied into
// the result so that nested calls resolve, unless `copy_library` is false
// (the function runtime resolves calls from its own library: a copy per
// nesting level would make a chain of calls quadratic in memory). Errors
// (kInvalidArgument unless noted): a missing attr (kNotFound "Attr T is not
// found from Op<...>"), an unknown op in the body, "input X is not found:
// {{node n}}", "Return X missing.", an output count mismatch.
StatusOr<tensorflow::GraphDef> InstantiateFunction(
    const tensorflow::FunctionDef& fdef,
    const google::protobuf::Map<std::string, tensorflow::AttrValue>& attrs,
    const tensorflow::FunctionDefLibrary& library, bool copy_library = true);

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_FUNCTION_INSTANTIATE_H_
