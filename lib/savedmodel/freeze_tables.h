// Lookup tables in a frozen graph, as a tf.compat.v1 freeze_graph user keeps
// them: a table (HashTable, HashTableV2) holds no checkpoint value, so the
// frozen graph keeps the table node and the initializer the SavedModel's init
// op runs on it (InitializeTableFromTextFileV2 from an asset file,
// InitializeTableV2, LookupTableImportV2 and their V1 forms), with the
// initializer's inputs turned into Consts holding what they are once the
// model is loaded (the asset file's absolute path, the keys and values), and
// a NoOp `init_all_tables` (tf.compat.v1.tables_initializer's name) that
// runs every initializer. Running `init_all_tables` once before the first
// step fills the tables: `dfg run` does it by itself (loader.h).
#ifndef DFG_LIB_SAVEDMODEL_FREEZE_TABLES_H_
#define DFG_LIB_SAVEDMODEL_FREEZE_TABLES_H_

#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"
#include "lib/optimize/function_inline.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

struct TableInitializer {
  std::string node;   // the initializer node of the (inlined) graph
  std::string table;  // the table node it fills
  // Per data input after the table handle: the tensor it reads, followed
  // back through Identity nodes (a Const's output, or a tensor of the
  // model's graph to fetch once the model is loaded).
  std::vector<std::string> sources;
};

// The table nodes among `needed` (node names). Errors (kInvalidArgument,
// prefixed with `where`): a mutable table (MutableHashTable...), whose
// contents a frozen graph cannot hold.
StatusOr<std::vector<std::string>> FindTables(
    const tensorflow::GraphDef& graph, const std::vector<std::string>& needed,
    const std::string& where);

// Inlines the calls that `init_op` needs and returns, for each of `tables`,
// the initializers the init op runs on it (sorted by node name). Errors
// (kInvalidArgument, prefixed with `where`): no init op, a table that the
// init op does not initialize or initializes in a way dfg freeze does not
// carry over (from a dataset), and the inliner's errors.
StatusOr<std::vector<TableInitializer>> FindTableInitializers(
    tensorflow::GraphDef* graph, FunctionInliner* inliner,
    const std::vector<std::string>& tables, const std::string& init_op,
    const std::string& where);

// Rewrites each initializer to read its table directly and, for source i, a
// Const "<initializer>/<argument>" holding values[k][i]; drops its control
// inputs; adds the NoOp `init_all_tables` that depends on every initializer
// (a node of that name already there is renamed first). Returns the NoOp's
// name.
std::string AddTableInitializers(
    tensorflow::GraphDef* graph, const std::vector<TableInitializer>& inits,
    const std::vector<std::vector<Tensor>>& values);

// Renames node `from` to `to` everywhere it is named (its name, inputs,
// colocation lists).
void RenameNode(tensorflow::GraphDef* graph, const std::string& from,
                const std::string& to);

}  // namespace dfg

#endif  // DFG_LIB_SAVEDMODEL_FREEZE_TABLES_H_
