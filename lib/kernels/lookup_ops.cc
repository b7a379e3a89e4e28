// Lookup table kernels (TensorFlow's core/kernels/lookup_table_op.cc and
// lookup_table_init_op.cc): HashTable(V2) creates the table in the step's
// ResourceMgr and outputs its handle; Find, Size, Export, Import and the
// initializers take the handle (a resource, or for the legacy ops a Ref to a
// [container, name] string vector).
#include "lib/kernels/file_policy.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/lookup_table.h"
#include "lib/kernels/text_table_reader.h"

namespace dfg {
namespace {

using tensorflow::DT_RESOURCE;
using tensorflow::DT_STRING;

class HashTableOp : public OpKernel {
 public:
  explicit HashTableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    anonymous_ = def().op().starts_with("Anonymous");
    if (!anonymous_) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
      DFG_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("use_node_name_sharing", &use_node_name_sharing_));
    }
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("key_dtype", &key_dtype_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("value_dtype", &value_dtype_));
    auto factory = MakeTableFactory(ctx);
    DFG_OP_REQUIRES_OK(ctx, factory.status());
    factory_ = *std::move(factory);
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    const std::string container =
        container_.empty() ? rm->default_container() : container_;
    // TensorFlow names a kernel-private table "_<id>_<node>" and keeps it as
    // long as the session's kernel; dfg's executors do not share kernels,
    // so the table is keyed by the node instead (one per session and node).
    // An anonymous table is new on every run.
    static std::atomic<int64_t> anonymous_id{0};
    const std::string name =
        anonymous_ ? fmt::format("AnonymousTable_{}", anonymous_id++)
        : !shared_name_.empty()  ? shared_name_
        : use_node_name_sharing_ ? def().name()
                                 : "_0_" + def().name();
    auto made = rm->LookupOrCreateResource(
        container, LookupTable::kTypeName, name,
        [this, ctx]() -> StatusOr<std::shared_ptr<ResourceBase>> {
          DFG_ASSIGN_OR_RETURN(auto table, factory_(ctx));
          return std::shared_ptr<ResourceBase>(table);
        });
    DFG_OP_REQUIRES_OK(ctx, made.status());
    auto* table = dynamic_cast<LookupTable*>(made->get());
    DFG_OP_REQUIRES(ctx, table != nullptr,
                    Internal("Resource {} is not a lookup table", name));
    DFG_OP_REQUIRES(
        ctx,
        table->key_dtype() == key_dtype_ &&
            table->value_dtype() == value_dtype_,
        InvalidArgument("Conflicting key/value dtypes {}->{} with {}-{} for "
                        "table {}",
                        DataTypeString(key_dtype_),
                        DataTypeString(value_dtype_),
                        DataTypeString(table->key_dtype()),
                        DataTypeString(table->value_dtype()), name));
    if (output_type(0) == DT_RESOURCE) {
      ResourceHandle h;
      h.device = def().device();
      h.container = container;
      h.name = name;
      h.maybe_type_name = LookupTable::kTypeName;
      ctx->set_output(0, Tensor::Scalar<ResourceHandle>(std::move(h)));
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!handle_.IsInitialized()) {
      handle_ = Tensor::Vector<std::string>({container, name});
    }
    ctx->set_output_ref(0, &mu_, &handle_);
  }

 private:
  std::string container_, shared_name_;
  bool use_node_name_sharing_ = false;
  bool anonymous_ = false;
  DataType key_dtype_, value_dtype_;
  TableFactory factory_;
  std::mutex mu_;
  Tensor handle_;  // legacy [container, name], guarded by mu_
};

// The table input 0 names.
Status GetTable(OpKernelContext* ctx, std::shared_ptr<LookupTable>* table) {
  ResourceMgr* rm = ctx->resource_manager();
  if (rm == nullptr) return Internal("No resource manager.");
  std::string container, name;
  if (ctx->input_dtype(0) == DT_RESOURCE) {
    const Tensor& t = ctx->input(0);
    if (t.dtype() != DT_RESOURCE || t.NumElements() != 1) {
      return InvalidArgument("Expected a scalar resource handle, got shape {}",
                             t.shape().DebugString());
    }
    const ResourceHandle& h = t.flat<ResourceHandle>()[0];
    if (!h.maybe_type_name.empty() &&
        h.maybe_type_name != LookupTable::kTypeName) {
      return InvalidArgument(
          "Trying to access resource using the wrong type. Expected {} got {}",
          LookupTable::kTypeName, h.maybe_type_name);
    }
    container = h.container;
    name = h.name;
  } else {
    std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(0));
    const Tensor& t = *ctx->mutable_input(0);
    if (t.dtype() != DT_STRING || t.NumElements() != 2) {
      return InvalidArgument(
          "Lookup table handle must be scalar, but had shape: {}",
          t.shape().DebugString());
    }
    container = t.flat<std::string>()[0];
    name = t.flat<std::string>()[1];
  }
  DFG_ASSIGN_OR_RETURN(
      auto r, rm->LookupResource(container, LookupTable::kTypeName, name));
  *table = std::dynamic_pointer_cast<LookupTable>(r);
  if (*table == nullptr) {
    return Internal("Resource {}/{} is not a lookup table", container, name);
  }
  return Status::Ok();
}

std::string TypesString(const std::vector<DataType>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) s += ", ";
    s += DataTypeString(types[i]);
  }
  return s;
}

// TensorFlow's OpKernelContext::MatchSignature: input 0 is the handle, the
// rest must be the table's dtypes.
Status MatchSignature(const OpKernel& k, const std::vector<DataType>& in,
                      const std::vector<DataType>& out) {
  std::vector<DataType> want_in = in;
  want_in.insert(want_in.begin(), k.input_type(0));
  if (want_in != k.input_types() || out != k.output_types()) {
    return InvalidArgument("Signature mismatch, have: {}->{} expected: {}->{}",
                           TypesString(k.input_types()),
                           TypesString(k.output_types()), TypesString(want_in),
                           TypesString(out));
  }
  return Status::Ok();
}

class LookupTableFindOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    DFG_OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    DFG_OP_REQUIRES_OK(
        ctx, MatchSignature(*this, {table->key_dtype(), table->value_dtype()},
                            {table->value_dtype()}));
    const Tensor& keys = ctx->input(1);
    TensorShape shape = keys.shape();
    for (int64_t d : table->value_shape().dim_sizes()) shape.AddDim(d);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    DFG_OP_REQUIRES_OK(ctx, table->Find(keys, ctx->input(2), out));
  }
};

class LookupTableSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    DFG_OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    ctx->set_output(0, Tensor::Scalar<int64_t>(table->size()));
  }
};

class LookupTableExportOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    DFG_OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    DFG_OP_REQUIRES_OK(
        ctx,
        MatchSignature(*this, {}, {table->key_dtype(), table->value_dtype()}));
    Tensor keys, values;
    table->Export(&keys, &values);
    ctx->set_output(0, std::move(keys));
    ctx->set_output(1, std::move(values));
  }
};

// LookupTableImport(V2) and InitializeTable(V2).
class InitializeTableOp : public OpKernel {
 public:
  explicit InitializeTableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    import_ = def().op().starts_with("LookupTableImport");
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    DFG_OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    DFG_OP_REQUIRES_OK(
        ctx,
        MatchSignature(*this, {table->key_dtype(), table->value_dtype()}, {}));
    const Tensor& keys = ctx->input(1);
    const Tensor& values = ctx->input(2);
    if (!import_) {
      DFG_OP_REQUIRES(
          ctx, keys.dims() == 1,
          InvalidArgument("Keys must be a vector, but received shape{}",
                          keys.shape().DebugString()));
      DFG_OP_REQUIRES(
          ctx, values.dims() == 1,
          InvalidArgument("Values must be a vector, but received shape{}",
                          values.shape().DebugString()));
      DFG_OP_REQUIRES(
          ctx, keys.NumElements() == values.NumElements(),
          InvalidArgument("Keys and values must have the same size {} vs {}",
                          keys.NumElements(), values.NumElements()));
    }
    DFG_OP_REQUIRES_OK(ctx, import_ ? table->Import(keys, values)
                                    : table->Initialize(keys, values));
  }

 private:
  bool import_ = false;
};

class LookupTableInsertOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    DFG_OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    DFG_OP_REQUIRES_OK(
        ctx,
        MatchSignature(*this, {table->key_dtype(), table->value_dtype()}, {}));
    DFG_OP_REQUIRES_OK(ctx, table->Insert(ctx->input(1), ctx->input(2)));
  }
};

class LookupTableRemoveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    DFG_OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    DFG_OP_REQUIRES_OK(ctx, MatchSignature(*this, {table->key_dtype()}, {}));
    DFG_OP_REQUIRES_OK(ctx, table->Remove(ctx->input(1)));
  }
};

class InitializeTableFromTextFileOp : public OpKernel {
 public:
  explicit InitializeTableFromTextFileOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    std::string delimiter;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("delimiter", &delimiter));
    DFG_OP_REQUIRES(ctx, delimiter.size() == 1,
                    InvalidArgument("delimiter should be only 1 char"));
    options_.delimiter = delimiter[0];
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("vocab_size", &options_.vocab_size));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("key_index", &options_.key_index));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("value_index", &options_.value_index));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("offset", &options_.offset));
  }

  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    DFG_OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    DFG_OP_REQUIRES_OK(ctx, MatchSignature(*this, {DT_STRING}, {}));
    const Tensor& filename = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, filename.dims() == 0,
        InvalidArgument("filename should be a single string, but got {}",
                        filename.shape().DebugString()));
    const std::string& path = filename.flat<std::string>()[0];
    DFG_OP_REQUIRES(ctx, !path.empty(),
                    InvalidArgument("filename cannot be empty."));
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, path));
    // Initialized from a file already: TensorFlow logs and succeeds.
    if (table->is_initialized()) return;
    TextTableOptions options = options_;
    options.key_dtype = table->key_dtype();
    options.value_dtype = table->value_dtype();
    Tensor keys, values;
    DFG_OP_REQUIRES_OK(ctx, ReadTextTable(path, options, &keys, &values));
    Status s = table->Initialize(keys, values);
    if (s.code() == Code::kFailedPrecondition && table->is_initialized()) {
      return;
    }
    DFG_OP_REQUIRES_OK(ctx, s);
  }

 private:
  TextTableOptions options_;
};

}  // namespace

void RegisterLookupKernels(KernelRegistry* r) {
  r->Register<LookupTableRemoveOp>("LookupTableRemoveV2");
  // The (key, value) pairs TensorFlow registers HashTable kernels for
  // (variant values aside).
  using tensorflow::DT_BOOL;
  using tensorflow::DT_DOUBLE;
  using tensorflow::DT_FLOAT;
  using tensorflow::DT_INT32;
  using tensorflow::DT_INT64;
  const std::vector<std::pair<DataType, std::vector<DataType>>> pairs = {
      {DT_INT32, {DT_DOUBLE, DT_FLOAT, DT_INT32, DT_STRING}},
      {DT_INT64, {DT_DOUBLE, DT_FLOAT, DT_INT32, DT_INT64, DT_STRING}},
      {DT_STRING,
       {DT_BOOL, DT_DOUBLE, DT_FLOAT, DT_INT32, DT_INT64, DT_STRING}}};
  for (const char* op : {"HashTable", "HashTableV2", "AnonymousHashTable"}) {
    for (const auto& [key, values] : pairs) {
      r->Register<HashTableOp>(op,
                               {KernelTypeConstraint{"key_dtype", {key}},
                                KernelTypeConstraint{"value_dtype", values}});
    }
  }
  // The mutable tables' pairs (variant and resource values aside).
  const std::vector<DataType> real = {DT_INT32, DT_INT64, DT_FLOAT, DT_DOUBLE};
  std::vector<DataType> real_bool = real, real_string = real;
  real_bool.push_back(DT_BOOL);
  real_string.push_back(DT_STRING);
  const std::vector<DataType> int32_values = {DT_INT32, DT_FLOAT, DT_DOUBLE};
  const std::vector<std::pair<DataType, std::vector<DataType>>> mutable_pairs =
      {{DT_STRING, real_bool},
       {DT_INT64, real_string},
       {DT_INT32, int32_values}};
  const std::vector<std::pair<DataType, std::vector<DataType>>> dense_pairs = {
      {DT_STRING, real_bool}, {DT_INT64, real_bool}, {DT_INT32, int32_values}};
  for (std::string op :
       {"MutableHashTable", "MutableHashTableV2", "AnonymousMutableHashTable",
        "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2",
        "AnonymousMutableHashTableOfTensors", "MutableDenseHashTable",
        "MutableDenseHashTableV2", "AnonymousMutableDenseHashTable"}) {
    const bool dense = op.find("Dense") != std::string::npos;
    for (const auto& [key, values] : dense ? dense_pairs : mutable_pairs) {
      r->Register<HashTableOp>(op,
                               {KernelTypeConstraint{"key_dtype", {key}},
                                KernelTypeConstraint{"value_dtype", values}});
    }
  }
  for (std::string v : {"", "V2"}) {
    r->Register<LookupTableInsertOp>("LookupTableInsert" + v);
    r->Register<LookupTableFindOp>("LookupTableFind" + v);
    r->Register<LookupTableSizeOp>("LookupTableSize" + v);
    r->Register<LookupTableExportOp>("LookupTableExport" + v);
    r->Register<InitializeTableOp>("LookupTableImport" + v);
    r->Register<InitializeTableOp>("InitializeTable" + v);
    r->Register<InitializeTableFromTextFileOp>("InitializeTableFromTextFile" +
                                               v);
  }
}

}  // namespace dfg
