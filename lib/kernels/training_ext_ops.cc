// More optimizer kernels, ref and resource forms (TensorFlow's
// training_ops.cc): Adadelta, AdagradV2, AdaMax, AddSign, PowerSign,
// CenteredRMSProp, Ftrl, FtrlV2, ProximalAdagrad, ProximalGradientDescent,
// AdagradDA, and the resource-only KerasMomentum and AdamWithAmsgrad. Each
// functor writes out TensorFlow's update element by element, in its order of
// operations; training_ops.h has the kernel.
#include <cmath>

#include "lib/kernels/training_ops.h"

namespace dfg {
namespace {

using namespace training;  // NOLINT: the optimizer kernel's vocabulary

template <typename C>
C Sign(C x) {
  return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
}

// accum = accum*rho + grad^2*(1-rho);
// update = sqrt(accum_update+eps) / sqrt(accum+eps) * grad; var -= update*lr;
// accum_update = accum_update*rho + update^2*(1-rho).
struct AdadeltaF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},  {"accum", kSlot}, {"accum_update", kSlot},
            {"lr", kScalar}, {"rho", kScalar}, {"epsilon", kScalar},
            {"grad", kGrad}};
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C lr = c[0], rho = c[1], eps = c[2];
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      const C accum = Load(s[1][i]) * rho + grad * grad * (C(1) - rho);
      const C au = Load(s[2][i]);
      const C update =
          std::sqrt(au + eps) * (C(1) / std::sqrt(accum + eps)) * grad;
      s[1][i] = Store<T>(accum);
      s[0][i] = Store<T>(Load(s[0][i]) - update * lr);
      s[2][i] = Store<T>(au * rho + update * update * (C(1) - rho));
    }
  }
};

// accum += grad^2 (if update_slots); var -= lr*grad / (sqrt(accum) + eps).
struct AdagradV2F {
  bool update_slots = true;
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"accum", kSlot},
            {"lr", kScalar},
            {"epsilon", kScalar},
            {"grad", kGrad}};
  }
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
      s[0][i] =
          Store<T>(Load(s[0][i]) - grad * c[0] / (std::sqrt(accum) + c[1]));
    }
  }
};

// m += (grad - m)*(1-beta1); v = max(beta2*v, |grad|);
// var -= lr / (1-beta1_power) * (m / (v + eps)).
struct AdaMaxF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"m", kSlot},
            {"v", kSlot},
            {"beta1_power", kScalar, "beta1_power is not a scalar : "},
            {"lr", kScalar, "lr is not a scalar : "},
            {"beta1", kScalar, "beta1 is not a scalar : "},
            {"beta2", kScalar, "beta2 is not a scalar : "},
            {"epsilon", kScalar, "epsilon is not a scalar : "},
            {"grad", kGrad}};
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C b1p = c[0], lr = c[1], b1 = c[2], b2 = c[3], eps = c[4];
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      C m = Load(s[1][i]);
      m += (grad - m) * (C(1) - b1);
      const C v = std::max(b2 * Load(s[2][i]), std::abs(grad));
      s[1][i] = Store<T>(m);
      s[2][i] = Store<T>(v);
      s[0][i] = Store<T>(Load(s[0][i]) - lr / (C(1) - b1p) * (m / (v + eps)));
    }
  }
};

// m = m*beta + grad*(1-beta); s = sign(grad)*sign(m);
// AddSign: var -= lr*(alpha + sign_decay*s)*grad;
// PowerSign: var -= lr*exp(logbase*sign_decay*s)*grad.
template <bool kPower>
struct SignF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},          {"m", kSlot},
            {"lr", kScalar},         {kPower ? "logbase" : "alpha", kScalar},
            {"sign_decay", kScalar}, {"beta", kScalar},
            {"grad", kGrad}};
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C lr = c[0], base = c[1], decay = c[2], beta = c[3];
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      const C m = Load(s[1][i]) * beta + grad * (C(1) - beta);
      s[1][i] = Store<T>(m);
      const C sgm = Sign(grad) * Sign(m);
      const C scale =
          kPower ? std::exp(base * decay * sgm) : base + decay * sgm;
      s[0][i] = Store<T>(Load(s[0][i]) - lr * scale * grad);
    }
  }
};

// ms += (grad^2 - ms)*(1-rho); mg += (grad - mg)*(1-rho);
// mom = mom*momentum + grad*lr / sqrt(ms - mg^2 + eps); var -= mom.
struct CenteredRMSPropF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"mg", kSlot},
            {"ms", kSlot},
            {"mom", kSlot},
            {"lr", kScalar, "lr is not a scalar : "},
            {"rho", kScalar, "rho is not a scalar : "},
            {"momentum", kScalar, "momentum is not a scalar : "},
            {"epsilon", kScalar, "epsilon is not a scalar : "},
            {"grad", kGrad}};
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C lr = c[0], rho = c[1], momentum = c[2], eps = c[3];
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      C ms = Load(s[2][i]), mg = Load(s[1][i]);
      ms += (grad * grad - ms) * (C(1) - rho);
      mg += (grad - mg) * (C(1) - rho);
      const C denom = ms - mg * mg + eps;
      const C mom =
          Load(s[3][i]) * momentum + grad * lr * (C(1) / std::sqrt(denom));
      s[1][i] = Store<T>(mg);
      s[2][i] = Store<T>(ms);
      s[3][i] = Store<T>(mom);
      s[0][i] = Store<T>(Load(s[0][i]) - mom);
    }
  }
};

// x^(-lr_power), with sqrt for the usual lr_power = -0.5 (as TensorFlow).
template <typename C>
C PowNeg(C x, C lr_power) {
  return lr_power == C(-0.5) ? std::sqrt(x) : std::pow(x, -lr_power);
}

// FTRL-proximal. Ftrl scalars: lr, l1, l2, lr_power; FtrlV2 adds
// l2_shrinkage before lr_power (grad + 2*l2_shrinkage*var feeds linear).
template <bool kV2>
struct FtrlF {
  bool multiply_linear_by_lr = false;
  static std::vector<ArgSpec> Args() {
    std::vector<ArgSpec> a = {
        {"var", kSlot},  {"accum", kSlot}, {"linear", kSlot}, {"grad", kGrad},
        {"lr", kScalar}, {"l1", kScalar},  {"l2", kScalar}};
    if (kV2) a.push_back({"l2_shrinkage", kScalar});
    a.push_back({"lr_power", kScalar});
    return a;
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C lr = c[0], l1 = c[1], l2 = c[2];
    const C shrink = kV2 ? c[3] : C(0), lr_power = kV2 ? c[4] : c[3];
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]), var = Load(s[0][i]);
      const C accum = Load(s[1][i]);
      const C new_accum = accum + grad * grad;
      const C g2 = kV2 ? grad + C(2) * shrink * var : grad;
      const C pa = PowNeg(new_accum, lr_power) - PowNeg(accum, lr_power);
      C linear = Load(s[2][i]);
      C l1_eff = l1, quad;
      if (multiply_linear_by_lr) {
        linear += g2 * lr - pa * var;
        l1_eff = l1 * lr;
        quad = PowNeg(new_accum, lr_power) + C(2) * l2 * lr;
      } else {
        linear += g2 - pa / lr * var;
        quad = PowNeg(new_accum, lr_power) / lr + C(2) * l2;
      }
      const C x = l1_eff * Sign(linear) - linear;
      s[0][i] = Store<T>(std::abs(linear) > l1_eff ? x / quad : C(0));
      s[1][i] = Store<T>(new_accum);
      s[2][i] = Store<T>(linear);
    }
  }
};

// The proximal step of ProximalAdagrad / ProximalGradientDescent.
template <typename C>
C Proximal(C prox, C rate, C l1, C l2) {
  if (l1 > C(0)) {
    return Sign(prox) * std::max(std::abs(prox) - rate * l1, C(0)) /
           (C(1) + l2 * rate);
  }
  return prox / (C(1) + l2 * rate);
}

// accum += grad^2; rate = lr / sqrt(accum); var = prox(var - grad*rate).
struct ProximalAdagradF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"accum", kSlot},
            {"lr", kScalar, "lr is not a positive scalar: "},
            {"l1", kScalar,
             "l1 regularization strength is not a non-negative scalar: "},
            {"l2", kScalar,
             "l2 regularization strength is not a non-negative scalar: "},
            {"grad", kGrad}};
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      const C accum = Load(s[1][i]) + grad * grad;
      s[1][i] = Store<T>(accum);
      const C rate = c[0] * (C(1) / std::sqrt(accum));
      s[0][i] =
          Store<T>(Proximal(C(Load(s[0][i]) - grad * rate), rate, c[1], c[2]));
    }
  }
};

// var = prox(var - delta*alpha).
struct ProximalGradientDescentF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"alpha", kScalar},
            {"l1", kScalar},
            {"l2", kScalar},
            {"delta", kGrad}};
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    for (int64_t i = 0; i < n; ++i) {
      const C prox = Load(s[0][i]) - Load(g[i]) * c[0];
      s[0][i] = Store<T>(Proximal(prox, c[0], c[1], c[2]));
    }
  }
};

// ga += grad; gsa += grad^2;
// var = lr*sign(-ga)*max(|ga| - l1*step, 0) / (l2*step*lr + sqrt(gsa))
// (l1 <= 0: lr*(-ga) / (...)).
struct AdagradDAF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"gradient_accumulator", kSlot},
            {"gradient_squared_accumulator", kSlot},
            {"grad", kGrad},
            {"lr", kScalar},
            {"l1", kScalar},
            {"l2", kScalar},
            {"global_step", kStep}};
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C lr = c[0], l1 = c[1], l2 = c[2], step = c[3];
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      const C ga = Load(s[1][i]) + grad;
      const C gsa = Load(s[2][i]) + grad * grad;
      s[1][i] = Store<T>(ga);
      s[2][i] = Store<T>(gsa);
      const C denom = l2 * step * lr + std::sqrt(gsa);
      s[0][i] = Store<T>(
          l1 > C(0) ? lr * Sign(-ga) *
                          std::max(std::abs(ga) - l1 * step, C(0)) / denom
                    : lr * (-ga) / denom);
    }
  }
};

// accum = accum*momentum - grad*lr; var += accum (nesterov: var +=
// accum*momentum - grad*lr).
struct KerasMomentumF {
  bool nesterov = false;
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"accum", kSlot},
            {"lr", kScalar},
            {"grad", kGrad},
            {"momentum", kScalar}};
  }
  template <typename T>
  void Run(T* const* s, const CalcType<T>* c, const T* g, int64_t n) const {
    using C = CalcType<T>;
    const C lr = c[0], momentum = c[1];
    for (int64_t i = 0; i < n; ++i) {
      const C grad = Load(g[i]);
      const C accum = Load(s[1][i]) * momentum - grad * lr;
      s[1][i] = Store<T>(accum);
      const C step = nesterov ? accum * momentum - grad * lr : accum;
      s[0][i] = Store<T>(Load(s[0][i]) + step);
    }
  }
};

// Adam with vhat = max(vhat, v) in place of v.
struct AdamWithAmsgradF {
  static std::vector<ArgSpec> Args() {
    return {{"var", kSlot},
            {"m", kSlot},
            {"v", kSlot},
            {"vhat", kSlot},
            {"beta1_power", kScalar, "beta1_power is not a scalar : "},
            {"beta2_power", kScalar, "beta2_power is not a scalar : "},
            {"lr", kScalar, "lr is not a scalar : "},
            {"beta1", kScalar, "beta1 is not a scalar : "},
            {"beta2", kScalar, "beta2 is not a scalar : "},
            {"epsilon", kScalar, "epsilon is not a scalar : "},
            {"grad", kGrad}};
  }
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
      const C vhat = std::max(Load(s[3][i]), v);
      s[1][i] = Store<T>(m);
      s[2][i] = Store<T>(v);
      s[3][i] = Store<T>(vhat);
      s[0][i] = Store<T>(Load(s[0][i]) - m * alpha / (std::sqrt(vhat) + eps));
    }
  }
};

}  // namespace

void RegisterTrainingExtKernels(KernelRegistry* r) {
  const auto fd = DataTypes(TypeList<float, double>());
  const auto fdh = DataTypes(TypeList<float, double, Half>());
  RegisterBoth<AdadeltaF>(r, "ApplyAdadelta", "ResourceApplyAdadelta");
  RegisterBoth<AdagradV2F>(r, "ApplyAdagradV2", "ResourceApplyAdagradV2");
  RegisterBoth<AdaMaxF>(r, "ApplyAdaMax", "ResourceApplyAdaMax", fdh);
  RegisterBoth<SignF<false>>(r, "ApplyAddSign", "ResourceApplyAddSign");
  RegisterBoth<SignF<true>>(r, "ApplyPowerSign", "ResourceApplyPowerSign");
  RegisterBoth<CenteredRMSPropF>(r, "ApplyCenteredRMSProp",
                                 "ResourceApplyCenteredRMSProp");
  RegisterBoth<FtrlF<false>>(r, "ApplyFtrl", "ResourceApplyFtrl");
  RegisterBoth<FtrlF<true>>(r, "ApplyFtrlV2", "ResourceApplyFtrlV2");
  RegisterBoth<ProximalAdagradF>(r, "ApplyProximalAdagrad",
                                 "ResourceApplyProximalAdagrad", fd);
  RegisterBoth<ProximalGradientDescentF>(r, "ApplyProximalGradientDescent",
                                         "ResourceApplyProximalGradientDescent",
                                         fd);
  RegisterBoth<AdagradDAF>(r, "ApplyAdagradDA", "ResourceApplyAdagradDA", fd);
  RegisterBoth<KerasMomentumF>(r, nullptr, "ResourceApplyKerasMomentum");
  RegisterBoth<AdamWithAmsgradF>(r, nullptr, "ResourceApplyAdamWithAmsgrad");
  const auto all = DataTypes(OptimizerTypes());
  const auto no_bf16 = DataTypes(TypeList<float, double, Half>());
  RegisterSparse<AdadeltaF>(r, "SparseApplyAdadelta",
                            "ResourceSparseApplyAdadelta", all);
  RegisterSparse<AdagradV2F>(r, "SparseApplyAdagradV2",
                             "ResourceSparseApplyAdagradV2", all);
  RegisterSparse<CenteredRMSPropF>(r, "SparseApplyCenteredRMSProp",
                                   "ResourceSparseApplyCenteredRMSProp",
                                   no_bf16);
  RegisterSparse<FtrlF<false>>(r, "SparseApplyFtrl", "ResourceSparseApplyFtrl",
                               all);
  RegisterSparse<FtrlF<true>>(r, "SparseApplyFtrlV2",
                              "ResourceSparseApplyFtrlV2", all);
  RegisterSparse<ProximalAdagradF>(r, "SparseApplyProximalAdagrad",
                                   "ResourceSparseApplyProximalAdagrad", fd);
  RegisterSparse<ProximalGradientDescentF>(
      r, "SparseApplyProximalGradientDescent",
      "ResourceSparseApplyProximalGradientDescent", fd);
  RegisterSparse<AdagradDAF>(r, "SparseApplyAdagradDA",
                             "ResourceSparseApplyAdagradDA", fd);
  RegisterSparse<KerasMomentumF>(r, nullptr, "ResourceSparseApplyKerasMomentum",
                                 all);
}

}  // namespace dfg
