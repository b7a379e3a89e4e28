// Optimizer kernels, ref and resource forms (TensorFlow's training_ops.cc):
// ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, ApplyAdam, ApplyRMSProp
// and their Resource* twins.
//
// Every optimizer has the same shape: some variable slots (var, accum, m...),
// scalar hyper-parameters and one gradient, in an op-specific input order;
// training_ops.h has the kernel they share, this file their update functors.
#include "lib/kernels/training_ops.h"

#include <cmath>

namespace dfg {
namespace {

using namespace training;  // NOLINT: the optimizer kernel's vocabulary

// Update functors: Run(slots, scalars, grad, n), with slots[0] the variable.
// Arithmetic in CalcType<T> (float for half types).
struct GradientDescentF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot}, {"alpha", kLegacyScalar}, {"delta", kGrad}};
  }

  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) {
      s[0][i] = Store<T>(Load(s[0][i]) - Load(g[i]) * c[0]);
    }
  }
};

// accum = accum * momentum + grad; var -= lr * accum (nesterov: var -=
// grad * lr + accum * momentum * lr). Scalars: lr, momentum.
struct MomentumF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"accum", kSlot},
            {"lr", kScalar},
            {"grad", kGrad},
            {"momentum", kScalar}};
  }

  bool nesterov = false;
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    const auto lr = c[0], momentum = c[1];
    for (int64_t i = 0; i < n; ++i) {
      const auto grad = Load(g[i]);
      const auto accum = Load(s[1][i]) * momentum + grad;
      s[1][i] = Store<T>(accum);
      const auto var = Load(s[0][i]);
      s[0][i] = Store<T>(nesterov ? var - (grad * lr + accum * momentum * lr)
                                  : var - accum * lr);
    }
  }
};

// accum += grad^2 (if update_slots); var -= lr * grad / sqrt(accum).
struct AdagradF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot}, {"accum", kSlot}, {"lr", kScalar}, {"grad", kGrad}};
  }

  bool update_slots = true;
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      C accum = Load(s[1][i]);
      if (update_slots) {
        accum += grad * grad;
        s[1][i] = Store<T>(accum);
      }
      s[0][i] = Store<T>(Load(s[0][i]) - grad * c[0] / std::sqrt(accum));
    }
  }
};

// Scalars: beta1_power, beta2_power, lr, beta1, beta2, epsilon.
//   alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2)
//   var -= m * alpha / (sqrt(v) + epsilon)
//   (nesterov: (grad * (1 - beta1) + beta1 * m) in place of m)
struct AdamF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"m", kSlot},
            {"v", kSlot},
            {"beta1_power", kScalar},
            {"beta2_power", kScalar},
            {"lr", kScalar},
            {"beta1", kScalar},
            {"beta2", kScalar},
            {"epsilon", kScalar},
            {"grad", kGrad}};
  }

  bool nesterov = false;
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C b1p = c[0], b2p = c[1], lr = c[2], b1 = c[3], b2 = c[4], eps = c[5];
    const C alpha = lr * std::sqrt(C(1) - b2p) / (C(1) - b1p);
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      C m = Load(s[1][i]), v = Load(s[2][i]);
      m += (grad - m) * (C(1) - b1);
      v += (grad * grad - v) * (C(1) - b2);
      s[1][i] = Store<T>(m);
      s[2][i] = Store<T>(v);
      const C step = nesterov ? (grad * (C(1) - b1) + b1 * m) : m;
      s[0][i] = Store<T>(Load(s[0][i]) - step * alpha / (std::sqrt(v) + eps));
    }
  }
};

// Scalars: lr, rho, momentum, epsilon.
//   ms += (grad^2 - ms) * (1 - rho)
//   mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom
struct RMSPropF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},       {"ms", kSlot},    {"mom", kSlot},
            {"lr", kScalar},      {"rho", kScalar}, {"momentum", kScalar},
            {"epsilon", kScalar}, {"grad", kGrad}};
  }

  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C lr = c[0], rho = c[1], momentum = c[2], eps = c[3];
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      C ms = Load(s[1][i]);
      ms += (grad * grad - ms) * (C(1) - rho);
      const C mom = Load(s[2][i]) * momentum + lr * grad / std::sqrt(ms + eps);
      s[1][i] = Store<T>(ms);
      s[2][i] = Store<T>(mom);
      s[0][i] = Store<T>(Load(s[0][i]) - mom);
    }
  }
};

}  // namespace

void RegisterTrainingKernels(KernelRegistry* r) {
  RegisterBoth<GradientDescentF>(r, "ApplyGradientDescent",
                                 "ResourceApplyGradientDescent");
  RegisterBoth<MomentumF>(r, "ApplyMomentum", "ResourceApplyMomentum");
  RegisterBoth<AdagradF>(r, "ApplyAdagrad", "ResourceApplyAdagrad");
  RegisterBoth<AdamF>(r, "ApplyAdam", "ResourceApplyAdam");
  RegisterBoth<RMSPropF>(r, "ApplyRMSProp", "ResourceApplyRMSProp");
  const auto all = DataTypes(OptimizerTypes());
  RegisterSparse<MomentumF>(r, "SparseApplyMomentum",
                            "ResourceSparseApplyMomentum", all);
  RegisterSparse<AdagradF>(r, "SparseApplyAdagrad",
                           "ResourceSparseApplyAdagrad", all);
  RegisterSparse<RMSPropF>(r, "SparseApplyRMSProp",
                           "ResourceSparseApplyRMSProp",
                           DataTypes(TypeList<float, double, Half>()));
}

}  // namespace dfg
