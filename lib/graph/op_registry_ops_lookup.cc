// Op table: lookup tables (TensorFlow's core/ops/lookup_ops.cc): hash tables,
// their initializers, find/import/export/size, in the legacy Ref(string)
// handle form and the resource (V2) form.
//
// Kernels: CPU only.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

OpBuilder TableOp(const std::string& name) {
  OpBuilder op = Op(name);
  op.Kernels("CPU");
  return op;
}

// "table_handle: Ref(string)" for the legacy ops, "resource" for V2.
std::string Handle(bool v2) {
  return v2 ? "table_handle: resource" : "table_handle: Ref(string)";
}

// TensorFlow marks the V2 table ops (a resource handle) stateful, the legacy
// ones (a Ref(string) handle) not.
OpBuilder StatefulIf(bool v2, OpBuilder op) {
  if (v2) op.Stateful();
  return op;
}

void RegisterTables(OpTable& t) {
  for (bool v2 : {false, true}) {
    const std::string suffix = v2 ? "V2" : "";
    t.Add(
        TableOp("HashTable" + suffix)
            .Output(v2 ? "table_handle: resource" : "table_handle: Ref(string)")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .Attr("use_node_name_sharing: bool = false")
            .Attr("key_dtype: type")
            .Attr("value_dtype: type")
            .Stateful());
    t.Add(StatefulIf(v2, TableOp("LookupTableFind" + suffix)
                             .Input(Handle(v2))
                             .Input("keys: Tin")
                             .Input("default_value: Tout")
                             .Output("values: Tout")
                             .Attr("Tin: type")
                             .Attr("Tout: type")));
    t.Add(StatefulIf(v2, TableOp("LookupTableSize" + suffix)
                             .Input(Handle(v2))
                             .Output("size: int64")));
    t.Add(StatefulIf(v2, TableOp("LookupTableExport" + suffix)
                             .Input(Handle(v2))
                             .Output("keys: Tkeys")
                             .Output("values: Tvalues")
                             .Attr("Tkeys: type")
                             .Attr("Tvalues: type")));
    t.Add(StatefulIf(v2, TableOp("LookupTableImport" + suffix)
                             .Input(Handle(v2))
                             .Input("keys: Tin")
                             .Input("values: Tout")
                             .Attr("Tin: type")
                             .Attr("Tout: type")));
    t.Add(StatefulIf(v2, TableOp("InitializeTable" + suffix)
                             .Input(Handle(v2))
                             .Input("keys: Tkey")
                             .Input("values: Tval")
                             .Attr("Tkey: type")
                             .Attr("Tval: type")));
    t.Add(StatefulIf(v2, TableOp("InitializeTableFromTextFile" + suffix)
                             .Input(Handle(v2))
                             .Input("filename: string")
                             .Attr("key_index: int >= -2")
                             .Attr("value_index: int >= -2")
                             .Attr("vocab_size: int >= -1 = -1")
                             .Attr("delimiter: string = '\\t'")
                             .Attr("offset: int = 0")));
  }
}

}  // namespace

void RegisterLookupOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterTables(t);
}

}  // namespace dfg
