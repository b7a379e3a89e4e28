// oneDNN convolutions split over dfg's intra-op pool.
//
// A call is planned once per shape (the plan cache below): the output is cut
// into shards, whole images or row bands, and every distinct shard shape gets
// its own single-threaded convolution primitive over plain NHWC memory
// descriptors (a band starts at its first input row; the padding it still
// needs above and below is the primitive's padding). The weights layout is
// oneDNN's choice (format_tag::any); the HWIO filter is reordered into it
// on the calling thread, once per Const filter (Weights) or once per call,
// then the shards run on the pool.
//
// Threads: the OpenMP build of libdnnl sizes each primitive and its parallel
// regions by omp_get_max_threads() of the calling thread. Every thread that
// enters this file sets it to 1 first, so a primitive is built for one
// thread and executed without an OpenMP team; the parallelism is dfg's.
#include "lib/kernels/onednn_conv.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/kernels/const_buffers.h"
#include "lib/kernels/omp_api.h"

namespace dfg {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr memory::data_type kF32 = memory::data_type::f32;

std::atomic<bool> g_enabled{true};
std::atomic<int64_t> g_runs{0};
std::atomic<int64_t> g_channel_split_runs{0};

// Below this many flops a shard is not worth a hand-off to another thread.
// 128 kflop is ~3 us of oneDNN's time, a few times what handing a shard to
// the pool thread that polls while a step runs costs (ThreadPool); and the
// caller claims shards too, so a late helper costs at most one shard.
// MobileNetV2 (alpha 0.35, 96x96, batch 2) has convolutions of 0.3 to 5
// Mflop: the 512 kflop this was before left most of them on one thread.
constexpr int64_t kMinShardFlops = int64_t{1} << 17;
// Conv2DBackpropInput splits over whole images only, and a batch its
// workers do not divide goes to GEMM + col2im instead: it keeps the
// coarser split it was measured with.
constexpr int64_t kMinBackwardShardFlops = int64_t{4} << 20;
constexpr size_t kPlanCacheCapacity = 128;
// Weights above this size are reordered on every call only when there are
// at least kMinPixelsWithReorder output pixels (over the batch); see MakePlan.
constexpr size_t kMaxReorderedWeightBytes = size_t{256} << 10;
constexpr int64_t kMinPixelsWithReorder = 400;

const dnnl::engine& Engine() {
  static const dnnl::engine* engine =
      new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// Per-thread oneDNN state: one OpenMP thread, a stream, a scratchpad.
struct ThreadState {
  ThreadState() : stream((omp_set_num_threads(1), Engine())) {}
  void* Scratchpad(size_t size) {
    if (size > scratch_size) {
      scratch.reset(
          static_cast<uint8_t*>(std::aligned_alloc(64, (size + 63) / 64 * 64)));
      scratch_size = size;
    }
    return scratch.get();
  }
  dnnl::stream stream;
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  // A channel shard's output block (see RunShards).
  float* Block(int64_t floats) {
    const size_t size = static_cast<size_t>(floats) * sizeof(float);
    if (size > block_size) {
      block.reset(
          static_cast<uint8_t*>(std::aligned_alloc(64, (size + 63) / 64 * 64)));
      block_size = size;
    }
    return reinterpret_cast<float*>(block.get());
  }
  std::unique_ptr<uint8_t, Free> scratch;
  size_t scratch_size = 0;
  std::unique_ptr<uint8_t, Free> block;
  size_t block_size = 0;
};

ThreadState& Thread() {
  thread_local ThreadState state;
  return state;
}

// One dimension of a band of output rows [o0, o1): the input rows it reads
// and the padding it needs around them.
struct Band {
  int64_t in_begin = 0, in_size = 0, pad_before = 0, pad_after = 0;
};

Band BandFor(const Window& w, int64_t o0, int64_t o1) {
  const int64_t extent = (w.k - 1) * w.dilation + 1;
  const int64_t start = o0 * w.stride - w.pad_before;
  const int64_t end = (o1 - 1) * w.stride - w.pad_before + extent;
  Band b;
  b.in_begin = std::clamp<int64_t>(start, 0, w.in);
  const int64_t last = std::clamp<int64_t>(end, 0, w.in);
  b.pad_before = b.in_begin - start;
  b.pad_after = end - last;
  b.in_size = last - b.in_begin;
  return b;
}

struct ShardKind {
  int64_t images = 0, in_rows = 0, out_rows = 0, pad_top = 0, pad_bottom = 0;
  int64_t out_depth = 0;  // the conv's, or a channel shard's
  dnnl::primitive primitive;
  memory::desc src, dst, scratchpad;
};

struct Shard {
  int kind = 0;
  int64_t image = 0, in_row = 0, out_row = 0;
  int64_t channel = 0;  // first output channel (by_channels plans)
};

struct Plan {
  bool backward = false;  // Conv2DBackpropInput: dy in, dx out
  // Which part of the epilogue dfg applies to each shard after oneDNN (see
  // OneDnnEpilogue): the scale and bias, the activation.
  bool pass_scale_bias = false, pass_activation = false;
  // Shards cut over the output channels (see CutChannels): each writes a
  // dense [images, rows, cols, channels] block into the thread's buffer,
  // then copies it into its channels of the output.
  bool by_channels = false;
  int64_t channels = 0;  // output channels per shard
  std::vector<ShardKind> kinds;
  std::vector<Shard> shards;
  memory::desc user_weights, weights, bias;
  std::optional<dnnl::reorder> reorder;  // user_weights -> weights
  memory::desc reorder_scratchpad;
  int64_t flops_per_shard = 0;
};

using PlanKey = std::array<int64_t, 26>;

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    size_t h = 0;
    for (int64_t v : k) h = h * 1000003u ^ std::hash<int64_t>()(v);
    return h;
  }
};

// The part of `e` oneDNN applies: the bias when there is no scale (it adds
// the bias before its post-ops, and the scale must come first), Relu and
// LeakyRelu when it applies all that comes before them.
ConvEpilogue OneDnnEpilogue(const ConvEpilogue& e) {
  ConvEpilogue o;
  if (e.scale != nullptr) return o;
  o.bias = e.bias;
  if (e.activation == ConvActivation::kRelu ||
      e.activation == ConvActivation::kLeakyRelu) {
    o.activation = e.activation;
    o.alpha = e.alpha;
  }
  return o;
}

dnnl::primitive_attr Attr(const ConvEpilogue& e) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops ops;
  switch (e.activation) {
    case ConvActivation::kNone:
      break;
    case ConvActivation::kRelu:
      // Not eltwise_relu with slope 0: it turns negatives into -0.
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f,
                         std::numeric_limits<float>::infinity());
      break;
    case ConvActivation::kLeakyRelu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, e.alpha, 0.0f);
      break;
    default:  // not in OneDnnEpilogue's result
      break;
  }
  attr.set_post_ops(ops);
  return attr;
}

// Builds the primitive of one shard kind. False when oneDNN has only its
// reference implementation for it (slower than im2col + sgemm by far).
bool BuildKind(const ConvDims& d, int64_t groups, const ConvEpilogue& e,
               bool backward, const Band& cols, ShardKind* k,
               memory::desc* weights) {
  const memory::dims src_dims{k->images, d.in_depth, k->in_rows, d.in_cols};
  const memory::dims dst_dims{k->images, k->out_depth, k->out_rows, d.cols.out};
  const memory::dims w_dims =
      groups == 1 ? memory::dims{k->out_depth, d.patch_depth, d.filter_rows,
                                 d.filter_cols}
                  : memory::dims{groups, d.out_depth / groups, d.patch_depth,
                                 d.filter_rows, d.filter_cols};
  const memory::desc src(src_dims, kF32, Tag::nhwc);
  const memory::desc dst(dst_dims, kF32, Tag::nhwc);
  const memory::desc any_w(w_dims, kF32, Tag::any);
  const memory::desc bias =
      e.bias ? memory::desc({k->out_depth}, kF32, Tag::x) : memory::desc();
  const memory::dims strides{d.rows.stride, d.cols.stride};
  const memory::dims dilates{d.rows.dilation - 1, d.cols.dilation - 1};
  const memory::dims pad_l{k->pad_top, cols.pad_before};
  const memory::dims pad_r{k->pad_bottom, cols.pad_after};
  const dnnl::convolution_forward::desc desc(
      backward ? dnnl::prop_kind::forward_training
               : dnnl::prop_kind::forward_inference,
      dnnl::algorithm::convolution_direct, src, any_w, bias, dst, strides,
      dilates, pad_l, pad_r);
  const dnnl::convolution_forward::primitive_desc pd(desc, Attr(e), Engine());
  k->src = src;
  k->dst = dst;
  if (backward) {
    const dnnl::convolution_backward_data::desc bwd(
        dnnl::algorithm::convolution_direct, src, any_w, dst, strides, dilates,
        pad_l, pad_r);
    const dnnl::convolution_backward_data::primitive_desc bpd(
        bwd, Attr(ConvEpilogue()), Engine(), pd);
    if (std::string(bpd.impl_info_str()).rfind("ref", 0) == 0) return false;
    k->scratchpad = bpd.scratchpad_desc();
    *weights = bpd.weights_desc();
    k->primitive = dnnl::convolution_backward_data(bpd);
    return true;
  }
  if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return false;
  k->scratchpad = pd.scratchpad_desc();
  *weights = pd.weights_desc();
  k->primitive = dnnl::convolution_forward(pd);
  return true;
}

// Splits the output: `workers` shards of whole images when the batch divides
// evenly, else every image in `workers` row bands.
void CutShards(const ConvDims& d, int64_t workers,
               std::vector<ShardKind>* kinds, std::vector<Shard>* shards) {
  auto kind_of = [&](ShardKind k) {
    for (size_t i = 0; i < kinds->size(); ++i) {
      const ShardKind& o = (*kinds)[i];
      if (o.images == k.images && o.in_rows == k.in_rows &&
          o.out_rows == k.out_rows && o.pad_top == k.pad_top &&
          o.pad_bottom == k.pad_bottom) {
        return static_cast<int>(i);
      }
    }
    kinds->push_back(k);
    return static_cast<int>(kinds->size() - 1);
  };
  const bool by_image = d.batch % workers == 0;
  const int64_t bands = by_image ? 1 : std::min(workers, d.rows.out);
  const int64_t images = by_image ? d.batch / workers : 1;
  for (int64_t b = 0; b < d.batch; b += images) {
    for (int64_t i = 0; i < bands; ++i) {
      const int64_t o0 = i * d.rows.out / bands;
      const int64_t o1 = (i + 1) * d.rows.out / bands;
      const Band rows = BandFor(d.rows, o0, o1);
      ShardKind k;
      k.images = images;
      k.out_depth = d.out_depth;
      // Whole images keep every input row (the image stride); rows no window
      // reaches at the bottom are dropped by the output size rule.
      k.in_rows = bands == 1 ? d.rows.in : rows.in_size;
      k.out_rows = o1 - o0;
      k.pad_top = rows.pad_before;
      k.pad_bottom = rows.pad_after;
      const int kind = kind_of(std::move(k));
      shards->push_back(Shard{kind, b, rows.in_begin, o0});
    }
  }
}

// Whether to split a forward convolution over its output channels: when its
// weights outweigh the activations it reads and writes, as in ResNet50's last
// stages at small resolutions (1x1 1024 -> 2048 on 2x2 pixels: 8 MB of
// weights for 64 KB of input). Split by images or rows, every thread streams
// all the weights from memory; split by channels, each streams its share and
// the threads' memory bandwidth adds up. Parts stay multiples of 16 channels
// (oneDNN's AVX-512 blocking).
bool SplitByChannels(const ConvDims& d, int64_t groups, bool backward,
                     int64_t workers) {
  if (backward || groups != 1 || workers < 2) return false;
  if (d.out_depth % (workers * 16) != 0) return false;
  const int64_t weights =
      d.filter_rows * d.filter_cols * d.patch_depth * d.out_depth;
  const int64_t activations = d.batch * (d.in_rows * d.in_cols * d.in_depth +
                                         d.rows.out * d.cols.out * d.out_depth);
  return weights >= 2 * activations;
}

// `workers` shards of the whole batch, each out_depth / workers channels.
void CutChannels(const ConvDims& d, int64_t workers,
                 std::vector<ShardKind>* kinds, std::vector<Shard>* shards) {
  const Band rows = BandFor(d.rows, 0, d.rows.out);
  ShardKind k;
  k.images = d.batch;
  k.in_rows = d.rows.in;
  k.out_rows = d.rows.out;
  k.pad_top = rows.pad_before;
  k.pad_bottom = rows.pad_after;
  k.out_depth = d.out_depth / workers;
  kinds->push_back(std::move(k));
  for (int64_t i = 0; i < workers; ++i) {
    shards->push_back(Shard{0, 0, 0, 0, i * (d.out_depth / workers)});
  }
}

// The plan of a call, or null when oneDNN should not run it.
std::shared_ptr<const Plan> MakePlan(const ConvDims& d, int64_t groups,
                                     const ConvEpilogue& e, bool backward,
                                     bool const_filter, int64_t workers) {
  auto plan = std::make_shared<Plan>();
  plan->backward = backward;
  const ConvEpilogue onednn = OneDnnEpilogue(e);
  plan->pass_scale_bias = e.scale != nullptr;
  plan->pass_activation = onednn.activation != e.activation;
  plan->by_channels = SplitByChannels(d, groups, backward, workers);
  if (plan->by_channels) {
    CutChannels(d, workers, &plan->kinds, &plan->shards);
  } else {
    CutShards(d, workers, &plan->kinds, &plan->shards);
  }
  plan->channels = plan->kinds[0].out_depth;
  // The columns keep the whole input width: columns no window reaches on the
  // right are dropped by oneDNN's output size rule as by TensorFlow's.
  const Band cols = BandFor(d.cols, 0, d.cols.out);
  for (const ShardKind& k : plan->kinds) {
    // A band or a column range that reads only padding.
    if (k.in_rows <= 0 || cols.in_size <= 0) return nullptr;
  }
  for (ShardKind& k : plan->kinds) {
    memory::desc w;
    if (!BuildKind(d, groups, onednn, backward, cols, &k, &w)) return nullptr;
    if (&k != &plan->kinds[0] && w != plan->weights) return nullptr;
    plan->weights = w;
  }
  const memory::dims w_dims = plan->weights.dims();
  plan->user_weights =
      memory::desc(w_dims, kF32, groups == 1 ? Tag::hwio : Tag::hwigo);
  if (plan->by_channels) {
    // A channel part of the HWIO filter: [o, i, h, w] with the whole
    // filter's strides.
    const int64_t o = d.out_depth, i = d.patch_depth;
    plan->user_weights = memory::desc(
        w_dims, kF32, memory::dims{1, o, d.filter_cols * i * o, i * o});
  }
  if (plan->user_weights != plan->weights) {
    // The reorder reads and writes every weight once per call, slowly once
    // the weights leave the cache (147 KB: 16 us, 1 MB: 0.8 ms, 9.4 MB:
    // 5 ms). With few output pixels that costs more than the convolution
    // saves (3x3 512 -> 512 on 7x7: 6.3 ms with oneDNN against 3.7 ms with
    // im2col + sgemm; 1x1 512 -> 512 on 14x14 a tie): those stay on im2col.
    // A Const filter is reordered once (Weights below).
    if (!const_filter && plan->weights.get_size() > kMaxReorderedWeightBytes &&
        d.batch * d.rows.out * d.cols.out < kMinPixelsWithReorder) {
      return nullptr;
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::reorder::primitive_desc pd(Engine(), plan->user_weights,
                                           Engine(), plan->weights, attr);
    plan->reorder_scratchpad = pd.scratchpad_desc();
    plan->reorder.emplace(pd);
  }
  if (onednn.bias) plan->bias = memory::desc({plan->channels}, kF32, Tag::x);
  plan->flops_per_shard = 2 * d.batch * d.rows.out * d.cols.out * d.out_depth *
                          d.filter_rows * d.filter_cols * d.patch_depth /
                          static_cast<int64_t>(plan->shards.size());
  return plan;
}

// A small LRU cache of plans; a null plan (oneDNN declined) is cached too.
class PlanCache {
 public:
  bool Find(const PlanKey& key, std::shared_ptr<const Plan>* plan) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    lru_.splice(lru_.begin(), lru_, it->second);
    *plan = it->second->second;
    return true;
  }
  void Insert(const PlanKey& key, std::shared_ptr<const Plan> plan) {
    std::lock_guard<std::mutex> lock(mu_);
    if (index_.count(key)) return;
    lru_.emplace_front(key, std::move(plan));
    index_[key] = lru_.begin();
    if (lru_.size() > kPlanCacheCapacity) {
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }

 private:
  using Entry = std::pair<PlanKey, std::shared_ptr<const Plan>>;
  std::mutex mu_;
  std::list<Entry> lru_;
  std::unordered_map<PlanKey, std::list<Entry>::iterator, PlanKeyHash> index_;
};

PlanCache& Cache() {
  static PlanCache* cache = new PlanCache;
  return *cache;
}

PlanKey KeyOf(const ConvDims& d, int64_t groups, const ConvEpilogue& e,
              bool backward, bool const_filter, int64_t workers) {
  int32_t alpha_bits = 0;
  std::memcpy(&alpha_bits, &e.alpha, sizeof(alpha_bits));
  return {d.batch,
          d.in_rows,
          d.in_cols,
          d.in_depth,
          d.filter_rows,
          d.filter_cols,
          d.patch_depth,
          d.out_depth,
          d.rows.stride,
          d.cols.stride,
          d.rows.dilation,
          d.cols.dilation,
          d.rows.pad_before,
          d.rows.pad_after,
          d.cols.pad_before,
          d.cols.pad_after,
          d.rows.out,
          d.cols.out,
          groups,
          workers,
          e.bias != nullptr,
          e.scale != nullptr,
          static_cast<int64_t>(e.activation),
          alpha_bits,
          backward,
          const_filter};
}

// The arguments a thread executes one shard kind of a plan with: memories
// created once and pointed at each call's buffers (set_data_handle), since
// creating them and the map costs about a microsecond per call, a sixth of
// MobileNetV2's smaller convolutions. Holds the plan, so that the kind
// outlives the plan cache's eviction while a thread still has it here.
struct BoundKind {
  std::shared_ptr<const Plan> plan;
  int kind = -1;
  std::unordered_map<int, memory> args;
};

constexpr size_t kBoundKindsPerThread = 64;

// This thread's BoundKind for kind `kind` of `plan`, made on first use.
BoundKind& Bind(const std::shared_ptr<const Plan>& plan, int kind) {
  thread_local std::vector<BoundKind> bound;
  thread_local size_t next_evicted = 0;
  for (BoundKind& b : bound) {
    if (b.plan == plan && b.kind == kind) return b;
  }
  BoundKind made;
  made.plan = plan;
  made.kind = kind;
  const ShardKind& k = plan->kinds[kind];
  const dnnl::engine& engine = Engine();
  // Placeholder handles: every call sets the real ones.
  const int src = plan->backward ? DNNL_ARG_DIFF_SRC : DNNL_ARG_SRC;
  const int dst = plan->backward ? DNNL_ARG_DIFF_DST : DNNL_ARG_DST;
  made.args[src] = memory(k.src, engine, nullptr);
  made.args[dst] = memory(k.dst, engine, nullptr);
  if (plan->bias.get_size() > 0) {
    made.args[DNNL_ARG_BIAS] = memory(plan->bias, engine, nullptr);
  }
  if (k.scratchpad.get_size() > 0) {
    made.args[DNNL_ARG_SCRATCHPAD] = memory(k.scratchpad, engine, nullptr);
  }
  if (bound.size() < kBoundKindsPerThread) {
    bound.push_back(std::move(made));
    return bound.back();
  }
  BoundKind& slot = bound[next_evicted];
  next_evicted = (next_evicted + 1) % kBoundKindsPerThread;
  slot = std::move(made);
  return slot;
}

// Runs shards [begin, end) of `plan` on the calling thread; weights[p] is
// the weights of channel part p (one part unless plan.by_channels).
void RunShards(const std::shared_ptr<const Plan>& plan_ref, const ConvDims& d,
               const float* in, const std::vector<memory>& weights,
               const ConvEpilogue& e, float* out, int64_t begin, int64_t end) {
  const Plan& plan = *plan_ref;
  ConvEpilogue pass;  // what dfg applies after oneDNN
  if (plan.pass_scale_bias) {
    pass.scale = e.scale;
    pass.bias = e.bias;
  }
  if (plan.pass_activation) {
    pass.activation = e.activation;
    pass.alpha = e.alpha;
  }
  const float* bias = plan.bias.get_size() > 0 ? e.bias : nullptr;
  ThreadState& t = Thread();
  for (int64_t i = begin; i < end; ++i) {
    const Shard& s = plan.shards[i];
    const ShardKind& k = plan.kinds[s.kind];
    // The convolution's src and dst; backward reads dst (dy), writes src.
    const int64_t src_at =
        (s.image * d.in_rows + s.in_row) * d.in_cols * d.in_depth;
    const int64_t dst_at =
        (s.image * d.rows.out + s.out_row) * d.cols.out * d.out_depth;
    const int64_t pixels = k.images * k.out_rows * d.cols.out;
    // A channel shard writes a dense block of its channels (oneDNN's fast
    // kernels take only dense NHWC), copied into the output below.
    float* dst =
        plan.by_channels ? t.Block(pixels * k.out_depth) : out + dst_at;
    BoundKind& b = Bind(plan_ref, s.kind);
    std::unordered_map<int, memory>& args = b.args;
    args[DNNL_ARG_WEIGHTS] = weights[s.channel / plan.channels];
    if (plan.backward) {
      args[DNNL_ARG_DIFF_DST].set_data_handle(const_cast<float*>(in) + dst_at);
      args[DNNL_ARG_DIFF_SRC].set_data_handle(out + src_at);
    } else {
      args[DNNL_ARG_SRC].set_data_handle(const_cast<float*>(in) + src_at);
      args[DNNL_ARG_DST].set_data_handle(dst);
    }
    if (bias) {
      args[DNNL_ARG_BIAS].set_data_handle(const_cast<float*>(bias) + s.channel);
    }
    if (k.scratchpad.get_size() > 0) {
      args[DNNL_ARG_SCRATCHPAD].set_data_handle(
          t.Scratchpad(k.scratchpad.get_size()));
    }
    k.primitive.execute(t.stream, args);
    t.stream.wait();
    if (plan.pass_scale_bias || plan.pass_activation) {
      ConvEpilogue part = pass;
      if (part.scale != nullptr) part.scale += s.channel;
      if (part.bias != nullptr) part.bias += s.channel;
      ApplyConvEpilogue(part, k.out_depth, dst, pixels * k.out_depth);
    }
    if (plan.by_channels) {
      for (int64_t p = 0; p < pixels; ++p) {
        std::memcpy(out + p * d.out_depth + s.channel, dst + p * k.out_depth,
                    k.out_depth * sizeof(float));
      }
    }
  }
}

// The weights of Const filters in oneDNN's layout, one per layout asked for,
// attached to the filter's buffer (const_buffers.h) so that they are
// reordered once, not on every call.
struct ReorderedWeights {
  struct Form {
    memory::desc desc;
    int64_t channel;  // the part's first output channel
    memory weights;
  };
  std::mutex mu;
  std::vector<Form> forms;
};

// Reorders the HWIO `filter` into plan.weights on the calling thread.
memory Reorder(const Plan& plan, const float* filter, memory to) {
  ThreadState& t = Thread();
  const dnnl::engine& engine = Engine();
  memory from(plan.user_weights, engine, const_cast<float*>(filter));
  std::unordered_map<int, memory> args = {{DNNL_ARG_FROM, from},
                                          {DNNL_ARG_TO, to}};
  if (plan.reorder_scratchpad.get_size() > 0) {
    args[DNNL_ARG_SCRATCHPAD] =
        memory(plan.reorder_scratchpad, engine,
               t.Scratchpad(plan.reorder_scratchpad.get_size()));
  }
  plan.reorder->execute(t.stream, args);
  t.stream.wait();
  return to;
}

// The weights of the part from output channel `channel` in plan.weights'
// layout: the filter itself when oneDNN takes HWIO, the cached reorder of a
// Const filter, else a fresh reorder.
memory Weights(const Plan& plan, const float* filter, int64_t channel,
               bool const_filter) {
  const dnnl::engine& engine = Engine();
  float* part = const_cast<float*>(filter) + channel;
  if (!plan.reorder) return memory(plan.user_weights, engine, part);
  if (!const_filter) return Reorder(plan, part, memory(plan.weights, engine));
  auto cached = std::static_pointer_cast<ReorderedWeights>(
      FindConstDerived(filter, kConstKeyOneDnnConvWeights));
  if (cached == nullptr) {
    cached = std::make_shared<ReorderedWeights>();
    AttachConstDerived(filter, kConstKeyOneDnnConvWeights, cached);
  }
  std::lock_guard<std::mutex> lock(cached->mu);
  for (const ReorderedWeights::Form& f : cached->forms) {
    if (f.desc == plan.weights && f.channel == channel) return f.weights;
  }
  memory mem = Reorder(plan, part, memory(plan.weights, engine));
  cached->forms.push_back({plan.weights, channel, mem});
  return mem;
}

Status RunPlan(ThreadPoolInterface* pool,
               const std::shared_ptr<const Plan>& plan_ref, const ConvDims& d,
               const float* in, const float* filter, bool const_filter,
               const ConvEpilogue& e, float* out) {
  const Plan& plan = *plan_ref;
  std::vector<memory> weights;
  for (int64_t c = 0; c < d.out_depth; c += plan.channels) {
    weights.push_back(Weights(plan, filter, c, const_filter));
  }
  std::mutex mu;
  std::string error;
  ParallelFor(pool, static_cast<int64_t>(plan.shards.size()),
              plan.flops_per_shard, [&](int64_t begin, int64_t end) {
                try {
                  RunShards(plan_ref, d, in, weights, e, out, begin, end);
                } catch (const dnnl::error& e) {
                  std::lock_guard<std::mutex> lock(mu);
                  error = e.what();
                }
              });
  if (!error.empty()) return Internal("oneDNN convolution failed: {}", error);
  return Status::Ok();
}

}  // namespace

void SetOneDnnConvEnabled(bool enabled) { g_enabled.store(enabled); }
bool OneDnnConvEnabled() { return g_enabled.load(); }
int64_t OneDnnConvRuns() { return g_runs.load(); }
int64_t OneDnnConvChannelSplitRuns() { return g_channel_split_runs.load(); }

namespace {

// What OneDnnConv2D and OneDnnConv2DBackpropInput share: `workers` shards.
Status RunConv(ThreadPoolInterface* pool, const ConvDims& d, int64_t groups,
               const ConvEpilogue& e, bool backward, int64_t workers,
               const float* in, const float* filter, float* out, bool* ran) {
  const bool const_filter = IsConstBuffer(filter);
  const PlanKey key = KeyOf(d, groups, e, backward, const_filter, workers);
  std::shared_ptr<const Plan> plan;
  try {
    if (!Cache().Find(key, &plan)) {
      Thread();  // one OpenMP thread before anything is built
      // One plan built at a time: building is rare (then cached), and
      // oneDNN's own caches behind it are set up lazily by the first build
      // in ways ThreadSanitizer cannot see synchronized (uninstrumented
      // code); our lock orders them for it.
      static std::mutex* build_mu = new std::mutex;
      std::lock_guard<std::mutex> lock(*build_mu);
      if (!Cache().Find(key, &plan)) {
        try {
          plan = MakePlan(d, groups, e, backward, const_filter, workers);
        } catch (const dnnl::error&) {
          plan = nullptr;  // oneDNN has no kernel for it: im2col runs it
        }
        Cache().Insert(key, plan);
      }
    }
    if (plan == nullptr) return Status::Ok();
    DFG_RETURN_IF_ERROR(
        RunPlan(pool, plan, d, in, filter, const_filter, e, out));
  } catch (const dnnl::error& err) {
    return Internal("oneDNN convolution failed: {}", err.what());
  }
  *ran = true;
  g_runs.fetch_add(1, std::memory_order_relaxed);
  if (plan->by_channels) {
    g_channel_split_runs.fetch_add(1, std::memory_order_relaxed);
  }
  return Status::Ok();
}

int64_t Flops(const ConvDims& d) {
  return 2 * d.batch * d.rows.out * d.cols.out * d.out_depth * d.filter_rows *
         d.filter_cols * d.patch_depth;
}

// A 1x1 convolution without padding whose stride divides the rows reads
// every image's rows as if the images were one tall image: the batch folds
// into the rows. Then oneDNN streams the weights once for the whole batch,
// not once per image (most of the time of ResNet's last stage, whose weights
// are megabytes for 2x2 pixels), and the rows split over the threads
// whatever the batch.
ConvDims FoldBatchIntoRows(const ConvDims& d) {
  const bool fold = d.batch > 1 && d.filter_rows == 1 && d.filter_cols == 1 &&
                    d.rows.pad_before == 0 && d.rows.pad_after == 0 &&
                    d.cols.pad_before == 0 && d.cols.pad_after == 0 &&
                    d.in_rows % d.rows.stride == 0 &&
                    d.rows.out * d.rows.stride == d.in_rows;
  if (!fold) return d;
  ConvDims f = d;
  f.batch = 1;
  f.in_rows = f.rows.in = d.batch * d.in_rows;
  f.rows.out = d.batch * d.rows.out;
  return f;
}

}  // namespace

Status OneDnnConv2D(ThreadPoolInterface* pool, const ConvDims& dims,
                    int64_t groups, const float* in, const float* filter,
                    const ConvEpilogue& e, float* out, bool* ran) {
  *ran = false;
  if (!OneDnnConvEnabled()) return Status::Ok();
  const ConvDims d = FoldBatchIntoRows(dims);
  // Depthwise convs run at about half the flop rate of dense ones (3x3 on
  // 112x112x32: 7.2 Mflop in 120 us), so they split at half the flops.
  const bool depthwise = d.patch_depth == 1 && groups == d.in_depth;
  const int64_t work = depthwise ? 2 * Flops(d) : Flops(d);
  int64_t workers = pool ? pool->NumThreads() : 1;
  workers = std::clamp<int64_t>(work / kMinShardFlops, 1, workers);
  return RunConv(pool, d, groups, e, false, workers, in, filter, out, ran);
}

Status OneDnnConv2DBackpropInput(ThreadPoolInterface* pool, const ConvDims& d,
                                 const float* dy, const float* filter,
                                 float* dx, bool* ran) {
  *ran = false;
  if (!OneDnnConvEnabled()) return Status::Ok();
  int64_t workers = pool ? pool->NumThreads() : 1;
  workers = std::clamp<int64_t>(Flops(d) / kMinBackwardShardFlops, 1, workers);
  // Whole images only (a row band of dx gathers from rows of dy that other
  // bands read too); a batch the threads do not divide stays on GEMM +
  // col2im, which splits its GEMM over the pool.
  if (d.batch % workers != 0) return Status::Ok();
  return RunConv(pool, d, 1, ConvEpilogue(), true, workers, dy, filter, dx,
                 ran);
}

}  // namespace dfg
