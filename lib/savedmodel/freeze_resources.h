// Variables that reach a frozen graph as resource handles rather than through
// a ReadVariableOp of the graph itself, converted as TensorFlow's
// convert_variables_to_constants_v2 converts them: the VarHandleOp becomes a
// Const holding the variable's value and every use of the handle follows.
// Identity-like nodes (Identity, IdentityN, Enter, Exit, NextIteration,
// Switch, Snapshot) pass the value on with their type attr changed; a
// ReadVariableOp becomes an Identity; ResourceGather becomes GatherV2 (axis
// 0, a Const "<node>/axis") and ResourceGatherNd GatherNd; a function caller
// (While, StatelessWhile, If, StatelessIf, Case, StatelessCase,
// PartitionedCall, StatefulPartitionedCall) gets the value's dtype in its
// type attr (While: its output_shapes too) and calls a copy of its functions,
// "<name>_frozen", whose argument has that dtype (a While body's result too)
// and whose uses of it are converted the same way, nested calls included.
// This is what keeps a Keras LSTM or GRU (weights captured by the While
// body), a tf.cond or tf.while_loop reading a variable and an Embedding
// (ResourceGather) freezable.
#ifndef DFG_LIB_SAVEDMODEL_FREEZE_RESOURCES_H_
#define DFG_LIB_SAVEDMODEL_FREEZE_RESOURCES_H_

#include <map>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

// True for ops that change a variable (Assign*, Scatter*, ResourceApply*...):
// a frozen graph cannot.
bool ChangesVariable(const std::string& op);

// Turns `node` into a Const holding `value`, keeping its name and device.
void MakeConstNode(tensorflow::NodeDef* node, const Tensor& value);

// The VarHandleOp nodes among `needed` (node names) that a needed node uses
// other than by a ReadVariableOp, looking through Identity nodes. In name
// order.
std::vector<std::string> CapturedHandles(
    const tensorflow::GraphDef& graph, const std::vector<std::string>& needed);

// Converts each VarHandleOp of `values` (node name -> the variable's value)
// and its uses by the nodes in `needed`, in place. Errors (kInvalidArgument,
// prefixed with `where`): a use that changes the variable (Assign*,
// Scatter*...: a frozen graph cannot), any other use not listed above, a
// ResourceGather with batch_dims != 0 (TensorFlow's freeze refuses it too),
// a caller naming a function the library lacks.
Status ConvertCapturedVariables(tensorflow::GraphDef* graph,
                                const std::map<std::string, Tensor>& values,
                                const std::vector<std::string>& needed,
                                const std::string& where);

}  // namespace dfg

#endif  // DFG_LIB_SAVEDMODEL_FREEZE_RESOURCES_H_
