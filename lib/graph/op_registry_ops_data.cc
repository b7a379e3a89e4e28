// Op table: data movement and input pipelines — queues,
// TensorArrays, TensorLists, tf.data datasets and iterators, Example parsing
// (TensorFlow's core/ops/{data_flow,list,dataset,experimental_dataset,
// parsing}_ops.cc). Only the ops real graphs (the corpus) use are listed.
//
// Kernels: queues, datasets, iterators and parsing are CPU-only;
// TensorArrays and TensorLists also have GPU kernels.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

void RegisterQueues(OpTable& t) {
  t.Add(Op("FIFOQueueV2")
            .Output("handle: resource")
            .Attr("component_types: list(type) >= 1")
            .Attr("shapes: list(shape) >= 0 = []")
            .Attr("capacity: int = -1")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("RandomShuffleQueueV2")
            .Output("handle: resource")
            .Attr("component_types: list(type) >= 1")
            .Attr("shapes: list(shape) >= 0 = []")
            .Attr("capacity: int = -1")
            .Attr("min_after_dequeue: int = 0")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("QueueEnqueueV2")
            .Input("handle: resource")
            .Input("components: Tcomponents")
            .Attr("Tcomponents: list(type) >= 1")
            .Attr("timeout_ms: int = -1")
            .Kernels("CPU")
            .Stateful());
  t.Add(Op("QueueDequeueV2")
            .Input("handle: resource")
            .Output("components: component_types")
            .Attr("component_types: list(type) >= 1")
            .Attr("timeout_ms: int = -1")
            .Kernels("CPU")
            .Stateful());
  t.Add(Op("QueueDequeueManyV2")
            .Input("handle: resource")
            .Input("n: int32")
            .Output("components: component_types")
            .Attr("component_types: list(type) >= 1")
            .Attr("timeout_ms: int = -1")
            .Kernels("CPU")
            .Stateful());
  t.Add(Op("QueueCloseV2")
            .Input("handle: resource")
            .Attr("cancel_pending_enqueues: bool = false")
            .Kernels("CPU")
            .Stateful());
  t.Add(Op("QueueSizeV2")
            .Input("handle: resource")
            .Output("size: int32")
            .Kernels("CPU")
            .Stateful());
  t.Add(Op("DynamicStitch")
            .Input("indices: N * int32")
            .Input("data: N * T")
            .Output("merged: T")
            .Attr("N: int >= 1")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "indices"));
}

void RegisterTensorArrays(OpTable& t) {
  t.Add(Op("TensorArrayV3")
            .Input("size: int32")
            .Output("handle: resource")
            .Output("flow: float")
            .Attr("dtype: type")
            .Attr("element_shape: shape = { unknown_rank: true }")
            .Attr("dynamic_size: bool = false")
            .Attr("clear_after_read: bool = true")
            .Attr("identical_element_shapes: bool = false")
            .Attr("tensor_array_name: string = ''")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "size", "handle"));
  t.Add(Op("TensorArrayWriteV3")
            .Input("handle: resource")
            .Input("index: int32")
            .Input("value: T")
            .Input("flow_in: float")
            .Output("flow_out: float")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle", "index")
            .Stateful());
  t.Add(Op("TensorArrayReadV3")
            .Input("handle: resource")
            .Input("index: int32")
            .Input("flow_in: float")
            .Output("value: dtype")
            .Attr("dtype: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle", "index")
            .Stateful());
  t.Add(Op("TensorArrayGatherV3")
            .Input("handle: resource")
            .Input("indices: int32")
            .Input("flow_in: float")
            .Output("value: dtype")
            .Attr("dtype: type")
            .Attr("element_shape: shape = { unknown_rank: true }")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle", "indices")
            .Stateful());
  t.Add(Op("TensorArrayScatterV3")
            .Input("handle: resource")
            .Input("indices: int32")
            .Input("value: T")
            .Input("flow_in: float")
            .Output("flow_out: float")
            .Attr("T: type")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle", "indices")
            .Stateful());
  t.Add(Op("TensorArraySizeV3")
            .Input("handle: resource")
            .Input("flow_in: float")
            .Output("size: int32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle", "size")
            .Stateful());
  t.Add(Op("TensorArrayCloseV3")
            .Input("handle: resource")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle")
            .Stateful());
}

void RegisterTensorLists(OpTable& t) {
  t.Add(Op("TensorListReserve")
            .Input("element_shape: shape_type")
            .Input("num_elements: int32")
            .Output("handle: variant")
            .Attr("element_dtype: type")
            .Attr("shape_type: {int32, int64}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "element_shape", "num_elements"));
  t.Add(Op("TensorListFromTensor")
            .Input("tensor: element_dtype")
            .Input("element_shape: shape_type")
            .Output("output_handle: variant")
            .Attr("element_dtype: type")
            .Attr("shape_type: {int32, int64}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "element_shape"));
  t.Add(Op("TensorListGetItem")
            .Input("input_handle: variant")
            .Input("index: int32")
            .Input("element_shape: Tshape")
            .Output("item: element_dtype")
            .Attr("element_dtype: type")
            .Attr("Tshape: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "index", "element_shape"));
  t.Add(Op("TensorListSetItem")
            .Input("input_handle: variant")
            .Input("index: int32")
            .Input("item: element_dtype")
            .Output("output_handle: variant")
            .Attr("element_dtype: type")
            .Attr("resize_if_index_out_of_bounds: bool = false")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "index"));
  t.Add(Op("TensorListStack")
            .Input("input_handle: variant")
            .Input("element_shape: int32")
            .Output("tensor: element_dtype")
            .Attr("element_dtype: type")
            .Attr("num_elements: int = -1")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "element_shape"));
}

// A dataset op: `inputs` (name: type specs), then the usual attrs.
OpBuilder Dataset(const char* name, std::initializer_list<const char*> inputs) {
  OpBuilder op = Op(name);
  for (const char* in : inputs) op.Input(in);
  op.Output("handle: variant").Kernels("CPU");
  return op;
}

void RegisterDatasets(OpTable& t) {
  constexpr const char* kTypes = "output_types: list(type) >= 1";
  constexpr const char* kShapes = "output_shapes: list(shape) >= 1";
  constexpr const char* kMetadata = "metadata: string = ''";
  t.Add(Dataset("TensorSliceDataset", {"components: Toutput_types"})
            .Attr("Toutput_types: list(type) >= 1")
            .Attr(kShapes)
            .Attr("is_files: bool = false")
            .Attr(kMetadata)
            .Attr("replicate_on_split: bool = false")
            .Stateful());
  t.Add(Dataset("RangeDataset", {"start: int64", "stop: int64", "step: int64"})
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr(kMetadata)
            .Attr("replicate_on_split: bool = false")
            .Stateful());
  t.Add(Dataset("TFRecordDataset",
                {"filenames: string", "compression_type: string",
                 "buffer_size: int64"})
            .Attr(kMetadata)
            .Stateful());
  t.Add(Dataset("MapDataset",
                {"input_dataset: variant", "other_arguments: Targuments"})
            .Attr("f: func")
            .Attr("Targuments: list(type) >= 0")
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr("use_inter_op_parallelism: bool = true")
            .Attr("preserve_cardinality: bool = false")
            .Attr("force_synchronous: bool = false")
            .Attr(kMetadata));
  t.Add(Dataset("FlatMapDataset",
                {"input_dataset: variant", "other_arguments: Targuments"})
            .Attr("f: func")
            .Attr("Targuments: list(type) >= 0")
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr(kMetadata));
  t.Add(Dataset("BatchDatasetV2", {"input_dataset: variant",
                                   "batch_size: int64", "drop_remainder: bool"})
            .Attr("parallel_copy: bool = false")
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr(kMetadata));
  t.Add(Dataset("PrefetchDataset",
                {"input_dataset: variant", "buffer_size: int64"})
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr("slack_period: int = 0")
            .Attr("legacy_autotune: bool = true")
            .Attr("buffer_size_min: int = 0")
            .Attr(kMetadata));
  t.Add(Dataset("RepeatDataset", {"input_dataset: variant", "count: int64"})
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr(kMetadata));
  t.Add(
      Dataset("ShuffleDataset", {"input_dataset: variant", "buffer_size: int64",
                                 "seed: int64", "seed2: int64"})
          .Attr("reshuffle_each_iteration: bool = true")
          .Attr(kTypes)
          .Attr(kShapes)
          .Attr(kMetadata));
  t.Add(Dataset("ShuffleAndRepeatDataset",
                {"input_dataset: variant", "buffer_size: int64", "seed: int64",
                 "seed2: int64", "count: int64"})
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr("reshuffle_each_iteration: bool = true")
            .Attr(kMetadata));
  t.Add(Dataset("ZipDataset", {"input_datasets: N * variant"})
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr("N: int >= 1")
            .Attr(kMetadata));
  t.Add(Dataset("OptimizeDataset",
                {"input_dataset: variant", "optimizations: string"})
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr("optimization_configs: list(string) = []"));
  t.Add(Dataset("ModelDataset", {"input_dataset: variant"})
            .Attr("algorithm: int = 0")
            .Attr("cpu_budget: int = 0")
            .Attr("ram_budget: int = 0")
            .Attr(kTypes)
            .Attr(kShapes));
  t.Add(Dataset("GeneratorDataset",
                {"init_func_other_args: Tinit_func_args",
                 "next_func_other_args: Tnext_func_args",
                 "finalize_func_other_args: Tfinalize_func_args"})
            .Attr("init_func: func")
            .Attr("next_func: func")
            .Attr("finalize_func: func")
            .Attr("Tinit_func_args: list(type) >= 0")
            .Attr("Tnext_func_args: list(type) >= 0")
            .Attr("Tfinalize_func_args: list(type) >= 0")
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr(kMetadata)
            .Stateful());
  t.Add(Dataset("ExperimentalMapAndBatchDataset",
                {"input_dataset: variant", "other_arguments: Targuments",
                 "batch_size: int64", "num_parallel_calls: int64",
                 "drop_remainder: bool"})
            .Attr("f: func")
            .Attr("Targuments: list(type) >= 0")
            .Attr(kTypes)
            .Attr(kShapes)
            .Attr("preserve_cardinality: bool = false"));
  t.Add(Dataset(
            "ExperimentalParallelInterleaveDataset",
            {"input_dataset: variant", "other_arguments: Targuments",
             "cycle_length: int64", "block_length: int64", "sloppy: bool",
             "buffer_output_elements: int64", "prefetch_input_elements: int64"})
            .Attr("f: func")
            .Attr("Targuments: list(type) >= 0")
            .Attr(kTypes)
            .Attr(kShapes));
  t.Add(Dataset("ExperimentalThreadPoolDataset",
                {"input_dataset: variant", "thread_pool: resource"})
            .Attr(kTypes)
            .Attr(kShapes)
            .Stateful());
  t.Add(Op("ExperimentalThreadPoolHandle")
            .Output("handle: resource")
            .Attr("num_threads: int")
            .Attr("max_intra_op_parallelism: int = 1")
            .Attr("display_name: string")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .Stateful()
            .Kernels("CPU"));
}

void RegisterIterators(OpTable& t) {
  constexpr const char* kTypes = "output_types: list(type) >= 1";
  constexpr const char* kShapes = "output_shapes: list(shape) >= 1";
  t.Add(Op("IteratorV2")
            .Output("handle: resource")
            .Attr("shared_name: string")
            .Attr("container: string")
            .Attr(kTypes)
            .Attr(kShapes)
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "handle"));
  t.Add(Op("MakeIterator")
            .Input("dataset: variant")
            .Input("iterator: resource")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "dataset", "iterator"));
  t.Add(Op("IteratorGetNext")
            .Input("iterator: resource")
            .Output("components: output_types")
            .Attr(kTypes)
            .Attr(kShapes)
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "iterator"));
  t.Add(Op("MultiDeviceIterator")
            .Output("handle: resource")
            .Attr("devices: list(string) >= 1")
            .Attr("shared_name: string")
            .Attr("container: string")
            .Attr(kTypes)
            .Attr(kShapes)
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("MultiDeviceIteratorInit")
            .Input("dataset: variant")
            .Input("multi_device_iterator: resource")
            .Input("max_buffer_size: int64")
            .Output("incarnation_id: int64")
            .Kernels("CPU")
            .Stateful());
  t.Add(Op("MultiDeviceIteratorGetNextFromShard")
            .Input("multi_device_iterator: resource")
            .Input("shard_num: int32")
            .Input("incarnation_id: int64")
            .Output("components: output_types")
            .Attr(kTypes)
            .Attr(kShapes)
            .Kernels("CPU")
            .Stateful());
  t.Add(Op("MultiDeviceIteratorToStringHandle")
            .Input("multi_device_iterator: resource")
            .Output("string_handle: string")
            .Kernels("CPU")
            .Stateful());
  t.Add(Op("MultiDeviceIteratorFromStringHandle")
            .Input("string_handle: string")
            .Output("multi_device_iterator: resource")
            .Attr("output_types: list(type) >= 0 = []")
            .Attr("output_shapes: list(shape) >= 0 = []")
            .Kernels("CPU")
            .Stateful());
}

void RegisterParsing(OpTable& t) {
  constexpr const char* kValueTypes = "list({float, int64, string}) >= 0";
  t.Add(Op("ParseExample")
            .Input("serialized: string")
            .Input("names: string")
            .Input("sparse_keys: Nsparse * string")
            .Input("dense_keys: Ndense * string")
            .Input("dense_defaults: Tdense")
            .Output("sparse_indices: Nsparse * int64")
            .Output("sparse_values: sparse_types")
            .Output("sparse_shapes: Nsparse * int64")
            .Output("dense_values: Tdense")
            .Attr("Nsparse: int >= 0")
            .Attr("Ndense: int >= 0")
            .Attr(std::string("sparse_types: ") + kValueTypes)
            .Attr(std::string("Tdense: ") + kValueTypes)
            .Attr("dense_shapes: list(shape) >= 0")
            .Kernels("CPU"));
  t.Add(Op("ParseExampleV2")
            .Input("serialized: string")
            .Input("names: string")
            .Input("sparse_keys: string")
            .Input("dense_keys: string")
            .Input("ragged_keys: string")
            .Input("dense_defaults: Tdense")
            .Output("sparse_indices: num_sparse * int64")
            .Output("sparse_values: sparse_types")
            .Output("sparse_shapes: num_sparse * int64")
            .Output("dense_values: Tdense")
            .Output("ragged_values: ragged_value_types")
            .Output("ragged_row_splits: ragged_split_types")
            .Attr(std::string("Tdense: ") + kValueTypes)
            .Attr("num_sparse: int >= 0")
            .Attr(std::string("sparse_types: ") + kValueTypes)
            .Attr(std::string("ragged_value_types: ") + kValueTypes)
            .Attr("ragged_split_types: list({int32, int64}) >= 0")
            .Attr("dense_shapes: list(shape) >= 0")
            .Kernels("CPU"));
  t.Add(Op("ParseSingleExample")
            .Input("serialized: string")
            .Input("dense_defaults: Tdense")
            .Output("sparse_indices: num_sparse * int64")
            .Output("sparse_values: sparse_types")
            .Output("sparse_shapes: num_sparse * int64")
            .Output("dense_values: Tdense")
            .Attr("num_sparse: int >= 0")
            .Attr("sparse_keys: list(string) >= 0")
            .Attr("dense_keys: list(string) >= 0")
            .Attr(std::string("sparse_types: ") + kValueTypes)
            .Attr(std::string("Tdense: ") + kValueTypes)
            .Attr("dense_shapes: list(shape) >= 0")
            .Kernels("CPU"));
}

}  // namespace

void RegisterDataOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterQueues(t);
  RegisterTensorArrays(t);
  RegisterTensorLists(t);
  RegisterDatasets(t);
  RegisterIterators(t);
  RegisterParsing(t);
}

}  // namespace dfg
