// The k-means helpers of TensorFlow's factorization library (float32 points,
// int64 scalars), with TensorFlow's seeded Philox stream (PhiloxRandom(seed):
// key = seed, counter 0, read one 32-bit word at a time):
//   NearestNeighbors              the k nearest centers of each point and
//                                 their squared distances, nearest first
//                                 (ties: the lower center index)
//   KMC2ChainInitialization       the last state of one k-MC^2 Markov chain
//   KmeansPlusPlusInitialization  k-means++ seeding with retries
// Distances are computed as TensorFlow does, |p|^2/2 - <p, c> + |c|^2/2 in
// float, so that sampling sees the same values up to the summation order of
// the inner products.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/philox.h"

namespace dfg {
namespace {

// TensorFlow's SimplePhilox over PhiloxRandom(seed).
class SimplePhilox {
 public:
  explicit SimplePhilox(int64_t seed)
      : gen_(static_cast<uint64_t>(seed), 0), single_(&gen_) {}
  float RandFloat() { return Uint32ToUnitFloat(single_()); }
  uint64_t Uniform64(uint64_t n) {
    const uint64_t lo = single_();
    const uint64_t hi = single_();
    return (lo | hi << 32) % n;
  }

 private:
  Philox4x32 gen_;
  SingleSampleAdapter single_;
};

Status CheckMatrixInput(const Tensor& t, const char* name) {
  if (t.dims() != 2) {
    return InvalidArgument("Input {} should be a matrix.", name);
  }
  return Status::Ok();
}

Status CheckScalarInput(const Tensor& t, const char* name) {
  if (t.dims() != 0) {
    return InvalidArgument("Input {} should be a scalar.", name);
  }
  return Status::Ok();
}

int64_t Scalar64(const Tensor& t) {
  return *static_cast<const int64_t*>(t.data());
}

// Half the squared norm of each row of a row-major rows x dims matrix.
std::vector<float> HalfSquaredNorms(const float* x, int64_t rows,
                                    int64_t dims) {
  std::vector<float> out(rows);
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0;
    for (int64_t d = 0; d < dims; ++d) s += x[r * dims + d] * x[r * dims + d];
    out[r] = 0.5f * s;
  }
  return out;
}

float Dot(const float* a, const float* b, int64_t dims) {
  float s = 0;
  for (int64_t d = 0; d < dims; ++d) s += a[d] * b[d];
  return s;
}

class NearestNeighborsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& points = ctx->input(0);
    const Tensor& centers = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrixInput(points, "points"));
    DFG_OP_REQUIRES_OK(ctx, CheckMatrixInput(centers, "centers"));
    DFG_OP_REQUIRES_OK(ctx, CheckScalarInput(ctx->input(2), "k"));
    const int64_t n = points.dim_size(0), dims = points.dim_size(1);
    const int64_t m = centers.dim_size(0);
    DFG_OP_REQUIRES(ctx, n > 0, InvalidArgument("Expected points.rows() > 0."));
    DFG_OP_REQUIRES(ctx, dims == centers.dim_size(1),
                    InvalidArgument("Expected point_dimensions == "
                                    "center_dimensions: {} vs {}.",
                                    dims, centers.dim_size(1)));
    const int64_t k_in = Scalar64(ctx->input(2));
    DFG_OP_REQUIRES(ctx, k_in >= 0, InvalidArgument("Expected k >= 0."));
    const int64_t k = std::min(m, k_in);
    Tensor* indices = nullptr;
    Tensor* distances = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({n, k}), &indices));
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({n, k}), &distances));
    if (k == 0) return;
    const float* p = static_cast<const float*>(points.data());
    const float* c = static_cast<const float*>(centers.data());
    const std::vector<float> p_half = HalfSquaredNorms(p, n, dims);
    const std::vector<float> c_half = HalfSquaredNorms(c, m, dims);
    auto* oi = static_cast<int64_t*>(indices->data());
    auto* od = static_cast<float*>(distances->data());
    std::vector<std::pair<float, int64_t>> partial(m);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        partial[j] = {c_half[j] - Dot(p + i * dims, c + j * dims, dims), j};
      }
      std::partial_sort(partial.begin(), partial.begin() + k, partial.end());
      for (int64_t j = 0; j < k; ++j) {
        od[i * k + j] =
            static_cast<float>(2.0 * (p_half[i] + partial[j].first));
        oi[i * k + j] = partial[j].second;
      }
    }
  }
};

class Kmc2ChainInitializationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& distances = ctx->input(0);
    DFG_OP_REQUIRES(ctx, distances.dims() == 1,
                    InvalidArgument("Input distances should be a vector."));
    DFG_OP_REQUIRES_OK(ctx, CheckScalarInput(ctx->input(1), "seed"));
    const int64_t n = distances.dim_size(0);
    DFG_OP_REQUIRES(ctx, n > 0,
                    InvalidArgument("Expected distances_tensor.size() > 0."));
    SimplePhilox rng(Scalar64(ctx->input(1)));
    const float* d = static_cast<const float*>(distances.data());
    // Move to candidate i with probability min(1, d[i] / d[selected]).
    int64_t selected = 0;
    for (int64_t i = 1; i < n; ++i) {
      if (d[i] > rng.RandFloat() * d[selected]) selected = i;
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    *static_cast<int64_t*>(out->data()) = selected;
  }
};

// The points k-means++ samples from, with half their squared norms.
struct PointSet {
  const float* p = nullptr;
  int64_t n = 0, dims = 0;
  std::vector<float> half;

  // A point not chosen yet: uniform first, then with probability
  // proportional to its distance to the chosen ones.
  int64_t Draw(SimplePhilox& rng, const std::set<int64_t>& chosen,
               const std::vector<float>& cumsum) const {
    if (chosen.empty()) return static_cast<int64_t>(rng.Uniform64(n));
    int64_t index = 0;
    do {
      const float total = cumsum[n - 1];
      if (!(total > 0.0f)) {
        index = static_cast<int64_t>(rng.Uniform64(n));
      } else {
        const float v = rng.RandFloat() * total;
        index =
            std::upper_bound(cumsum.begin(), cumsum.end(), v) - cumsum.begin();
        index = std::min(index, n - 1);
      }
    } while (chosen.count(index) != 0);
    return index;
  }

  // min(min_d, half the squared distance to point `index`).
  std::vector<float> WithCenter(const std::vector<float>& min_d,
                                int64_t index) const {
    std::vector<float> d(n);
    const float* y = p + index * dims;
    for (int64_t i = 0; i < n; ++i) {
      const float dist = (half[i] - Dot(p + i * dims, y, dims)) + half[index];
      d[i] = std::min(min_d[i], dist);
    }
    return d;
  }
};

class KmeansPlusPlusInitializationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& points = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrixInput(points, "points"));
    DFG_OP_REQUIRES_OK(ctx, CheckScalarInput(ctx->input(1), "num_to_sample"));
    DFG_OP_REQUIRES_OK(ctx, CheckScalarInput(ctx->input(2), "seed"));
    DFG_OP_REQUIRES_OK(
        ctx, CheckScalarInput(ctx->input(3), "num_retries_per_sample"));
    PointSet ps;
    ps.n = points.dim_size(0);
    ps.dims = points.dim_size(1);
    const int64_t n = ps.n, dims = ps.dims;
    const int64_t samples = Scalar64(ctx->input(1));
    const int64_t retries_in = Scalar64(ctx->input(3));
    const int64_t retries = retries_in >= 0
                                ? retries_in
                                : 2 + static_cast<int64_t>(std::log(samples));
    DFG_OP_REQUIRES(ctx, n > 0, InvalidArgument("Expected points.rows() > 0."));
    DFG_OP_REQUIRES(ctx, samples > 0,
                    InvalidArgument("Expected num_to_sample > 0."));
    DFG_OP_REQUIRES(ctx, samples <= n,
                    InvalidArgument("Expected num_to_sample <= points.rows(). "
                                    "{} vs {}.",
                                    samples, n));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({samples, dims}), &out));
    ps.p = static_cast<const float*>(points.data());
    ps.half = HalfSquaredNorms(ps.p, n, dims);
    SimplePhilox rng(Scalar64(ctx->input(2)));
    std::set<int64_t> chosen;
    std::vector<float> min_d(n, std::numeric_limits<float>::infinity());
    std::vector<float> cumsum(n);
    auto* o = static_cast<float*>(out->data());
    for (int64_t s = 0; s < samples; ++s) {
      if (s > 0) std::partial_sum(min_d.begin(), min_d.end(), cumsum.begin());
      int64_t best = 0;
      float best_potential = std::numeric_limits<float>::infinity();
      std::vector<float> best_d;
      for (int64_t t = 0; t < (retries == 0 ? 1 : 1 + retries); ++t) {
        const int64_t index = ps.Draw(rng, chosen, cumsum);
        std::vector<float> d = ps.WithCenter(min_d, index);
        float potential = 0;
        for (float v : d) potential += v;
        if (retries == 0 || potential < best_potential) {
          best_potential = potential;
          best = index;
          best_d = std::move(d);
        }
      }
      min_d = std::move(best_d);
      const int64_t from = std::min(best, n - 1);
      std::copy(ps.p + from * dims, ps.p + (from + 1) * dims, o + s * dims);
      chosen.insert(from);
    }
  }
};

}  // namespace

void RegisterLinalgClusterKernels(KernelRegistry* r) {
  r->Register<NearestNeighborsOp>("NearestNeighbors", {});
  r->Register<Kmc2ChainInitializationOp>("KMC2ChainInitialization", {});
  r->Register<KmeansPlusPlusInitializationOp>("KmeansPlusPlusInitialization",
                                              {});
}

}  // namespace dfg
