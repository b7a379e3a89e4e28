// ResourceMgr: a mutex-guarded map from (container, name) to Var.
#include "lib/kernels/resource_mgr.h"

namespace dfg {

StatusOr<std::shared_ptr<Var>> ResourceMgr::LookupOrCreate(
    const std::string& container, const std::string& name, DataType dtype) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = vars_.try_emplace({container, name});
  if (inserted) {
    it->second = std::make_shared<Var>(dtype);
    return it->second;
  }
  const DataType existing = it->second->tensor()->dtype();
  if (existing != dtype) {
    return InvalidArgument(
        "Trying to share variable {}, but specified dtype {} and found dtype "
        "{}.",
        name, DataTypeString(dtype), DataTypeString(existing));
  }
  return it->second;
}

StatusOr<std::shared_ptr<Var>> ResourceMgr::Lookup(
    const std::string& container, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vars_.find({container, name});
  if (it == vars_.end()) {
    return NotFound("Resource {}/{}/N10tensorflow3VarE does not exist.",
                    container, name);
  }
  return it->second;
}

void ResourceMgr::Cleanup(const std::string& container) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = vars_.begin(); it != vars_.end();) {
    if (it->first.first == container) {
      it = vars_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace dfg
