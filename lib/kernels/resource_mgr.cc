// ResourceMgr: mutex-guarded maps from (container, name) to Var and from
// (container, type name, name) to any other resource.
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
  // Both maps sort by container first: its entries are one range, found
  // without a walk over every variable (steps call this for their own
  // container every time).
  std::lock_guard<std::mutex> lock(mu_);
  auto var = vars_.lower_bound({container, std::string()});
  while (var != vars_.end() && var->first.first == container) {
    var = vars_.erase(var);
  }
  auto res = resources_.lower_bound(Key(container, "", ""));
  while (res != resources_.end() && std::get<0>(res->first) == container) {
    res = resources_.erase(res);
  }
}

Status ResourceMgr::Create(const std::string& container,
                           const std::string& type_name,
                           const std::string& name,
                           std::shared_ptr<ResourceBase> r) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] =
      resources_.try_emplace({container, type_name, name}, std::move(r));
  if (!inserted) {
    return AlreadyExists("Resource {}/{}/{}", container, name, type_name);
  }
  return Status::Ok();
}

StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::LookupResource(
    const std::string& container, const std::string& type_name,
    const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find({container, type_name, name});
  if (it == resources_.end()) {
    return NotFound("Resource {}/{}/{} does not exist.", container, name,
                    type_name);
  }
  return it->second;
}

StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::LookupOrCreateResource(
    const std::string& container, const std::string& type_name,
    const std::string& name, const ResourceFactory& create) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find({container, type_name, name});
  if (it != resources_.end()) return it->second;
  DFG_ASSIGN_OR_RETURN(std::shared_ptr<ResourceBase> r, create());
  resources_.emplace(Key{container, type_name, name}, r);
  return r;
}

Status ResourceMgr::Delete(const std::string& container,
                           const std::string& type_name,
                           const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool erased = type_name == kVarTypeName
                          ? vars_.erase({container, name}) > 0
                          : resources_.erase({container, type_name, name}) > 0;
  if (!erased) {
    return NotFound("Resource {}/{}/{} does not exist.", container, name,
                    type_name);
  }
  return Status::Ok();
}

}  // namespace dfg
