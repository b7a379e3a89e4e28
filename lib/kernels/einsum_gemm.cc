#include "lib/kernels/einsum_gemm.h"

#include <algorithm>

namespace dfg {
namespace {

constexpr int kA = 0, kB = 1, kOut = 2;

// A label's size and stride in each term (in[t] false: not in term t).
struct Label {
  int64_t size[3] = {0, 0, 0};
  int64_t stride[3] = {0, 0, 0};
  bool in[3] = {false, false, false};
  int64_t Size() const { return std::max({size[0], size[1], size[2]}); }
};

// Fills (*labels)[l] for term `t`; false when a label repeats in it.
bool Collect(const EinsumTerm& term, int t, std::vector<Label>* labels) {
  if (term.labels.size() != term.dims.size()) return false;
  int64_t stride = 1;
  for (int i = static_cast<int>(term.labels.size()) - 1; i >= 0; --i) {
    const int l = term.labels[i];
    if (l < 0) return false;
    if (static_cast<size_t>(l) >= labels->size()) labels->resize(l + 1);
    Label& info = (*labels)[l];
    if (info.in[t]) return false;
    info.in[t] = true;
    info.size[t] = term.dims[i];
    info.stride[t] = stride;
    stride *= term.dims[i];
  }
  return true;
}

// Labels `group` (in order) as one strided dim of terms t0 and t1: its size
// and per-term stride. False when they are not adjacent and contiguous.
struct Merged {
  int64_t size = 1;
  int64_t stride[3] = {0, 0, 0};
};
bool Merge(const std::vector<Label>& labels, const std::vector<int>& group,
           int t0, int t1, Merged* m) {
  const Label* prev = nullptr;
  for (int l : group) {
    const Label& cur = labels[l];
    if (cur.Size() == 1) continue;
    for (int t : {t0, t1}) {
      if (cur.size[t] != cur.Size()) return false;  // only batch broadcasts
      if (prev != nullptr && prev->stride[t] != cur.stride[t] * cur.Size()) {
        return false;
      }
      m->stride[t] = cur.stride[t];
    }
    m->size *= cur.Size();
    prev = &cur;
  }
  return true;
}

// Row stride of a [rows, cols] view with strides (rs, cs), not transposed;
// 0 when it is not one.
int64_t RowMajorLd(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (cols != 1 && cs != 1) return 0;
  const int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
  return ld >= cols ? ld : 0;
}

// Picks the transpose flag and leading dimension of a [rows, cols] operand.
bool Orient(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans,
            int64_t* ld) {
  if ((*ld = RowMajorLd(rows, cols, rs, cs)) != 0) {
    *trans = false;
    return true;
  }
  if ((*ld = RowMajorLd(cols, rows, cs, rs)) != 0) {
    *trans = true;
    return true;
  }
  return false;
}

}  // namespace

std::optional<BatchedGemm> PlanEinsumGemm(const EinsumTerm& a,
                                          const EinsumTerm& b,
                                          const EinsumTerm& out) {
  std::vector<Label> labels;
  if (!Collect(a, kA, &labels) || !Collect(b, kB, &labels) ||
      !Collect(out, kOut, &labels)) {
    return std::nullopt;
  }
  for (const EinsumTerm* t : {&a, &b, &out}) {
    for (int64_t d : t->dims) {
      if (d == 0) return std::nullopt;
    }
  }
  std::vector<int> m_group, n_group, k_group, batch;
  for (int l : out.labels) {
    const Label& info = labels[l];
    if (info.in[kA] && info.in[kB]) {
      batch.push_back(l);
    } else if (info.in[kA]) {
      m_group.push_back(l);
    } else if (info.in[kB]) {
      n_group.push_back(l);
    } else {
      return std::nullopt;
    }
  }
  for (int l : a.labels) {
    const Label& info = labels[l];
    if (info.in[kOut]) continue;
    if (!info.in[kB]) return std::nullopt;  // summed out of one operand
    k_group.push_back(l);
  }
  for (int l : b.labels) {
    if (!labels[l].in[kOut] && !labels[l].in[kA]) return std::nullopt;
  }
  Merged m, n, k;
  if (!Merge(labels, m_group, kA, kOut, &m) ||
      !Merge(labels, n_group, kB, kOut, &n) ||
      !Merge(labels, k_group, kA, kB, &k)) {
    return std::nullopt;
  }
  BatchedGemm g;
  g.m = m.size;
  g.n = n.size;
  g.k = k.size;
  bool trans_c = false;
  if (!Orient(g.m, g.k, m.stride[kA], k.stride[kA], &g.trans_a, &g.lda) ||
      !Orient(g.k, g.n, k.stride[kB], n.stride[kB], &g.trans_b, &g.ldb) ||
      !Orient(g.m, g.n, m.stride[kOut], n.stride[kOut], &trans_c, &g.ldc) ||
      trans_c) {
    return std::nullopt;
  }
  for (int l : batch) {
    const Label& info = labels[l];
    const int64_t size = info.Size();
    if (info.size[kOut] != size) return std::nullopt;
    int64_t strides[2];
    for (int t : {kA, kB}) {
      if (info.size[t] != size && info.size[t] != 1) return std::nullopt;
      strides[t] = info.size[t] == size ? info.stride[t] : 0;
    }
    g.batch.push_back(size);
    g.a_strides.push_back(strides[kA]);
    g.b_strides.push_back(strides[kB]);
    g.c_strides.push_back(info.stride[kOut]);
  }
  g.Simplify();
  return g;
}

}  // namespace dfg
