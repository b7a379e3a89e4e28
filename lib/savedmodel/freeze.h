// Freezing one signature of a SavedModel into a standalone GraphDef (what
// TensorFlow's convert_variables_to_constants_v2 and freeze_graph give):
// the signature's function calls inlined (lib/optimize/function_inline.h), each
// variable read replaced by a Const holding the value the model has after
// LoadSavedModel (restore and init op), and a variable passed on to a
// While/If/Case body, a nested call or a gather converted as
// convert_variables_to_constants_v2 converts it (freeze_resources.h), the
// inputs as Placeholders named by
// the signature's input keys (its dtype and shape), the outputs as nodes
// named by its output keys (an Identity, unless the output already is port
// 0 of a node of that name), every other node that would clash with a key
// renamed ("<name>_1"), and everything the outputs do not need removed
// (restore, save and init machinery; lib/prune's PruneUnused, which also
// drops colocation entries naming removed nodes, unused library functions
// and every gradient). Lookup tables the outputs need are
// kept with the initializers the init op runs on them, on Consts, and a
// NoOp `init_all_tables` that runs those (freeze_tables.h). The result has
// no variable, saver or call op, so every other stage works on it.
#ifndef DFG_LIB_SAVEDMODEL_FREEZE_H_
#define DFG_LIB_SAVEDMODEL_FREEZE_H_

#include <string>

#include "lib/base/status.h"
#include "lib/io/graph_io.h"
#include "lib/savedmodel/loader.h"

namespace dfg {

struct FreezeOptions {
  std::string signature = "serving_default";
  // How the variables' values are obtained; export_dir and checkpoint as
  // for LoadSavedModel (export_dir defaults to the model's).
  LoadOptions load;
};

// Errors: an unknown signature (kNotFound, listing them), a sparse input or
// output, a key that is both an input and an output, a signature output
// that changes a variable, in the graph or a function it is passed to
// (kInvalidArgument naming the node: a frozen graph cannot), a variable the
// outputs read in a way freeze does not convert, a mutable lookup table or one
// the init op does not fill (freeze_tables.h), and LoadSavedModel's errors
// (missing or corrupt checkpoint).
StatusOr<tensorflow::GraphDef> FreezeSavedModel(const LoadedGraph& model,
                                                const FreezeOptions& options);

// The signature's computation as FreezeSavedModel shapes it (inputs as
// Placeholders and outputs as nodes named by their keys, calls inlined,
// the rest pruned) but with the variables left as they are: nothing is
// loaded, so no checkpoint is read. Errors: those of FreezeSavedModel that
// come before loading (unknown signature, sparse input or output).
StatusOr<tensorflow::GraphDef> SignatureComputation(
    const LoadedGraph& model, const std::string& signature);

}  // namespace dfg

#endif  // DFG_LIB_SAVEDMODEL_FREEZE_H_
