// The outputs of `dfg run`.
#include "subcommands/run/outputs.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "lib/base/strings.h"
#include "lib/io/graph_io.h"
#include "lib/io/npy.h"
#include "lib/tensor_io/tensor_io.h"

namespace dfg {

Status WriteRunOutputs(const RunOutcome& outcome, const Step& step,
                       const RunOutputOptions& options, std::ostream& out,
                       std::ostream& err) {
  if (!options.trace.empty()) {
    std::vector<std::string> devices;  // remote: as the tasks report them
    if (outcome.session) devices = outcome.session->devices();
    DFG_RETURN_IF_ERROR(WriteFileAtomically(
        options.trace, ChromeTraceJson(outcome.stats, devices)));
  }
  if (options.stats) err << StatsTable(outcome.stats);
  if (options.latencies) err << LatencyLine(outcome.results.latencies_us);
  if (!options.output_dir.empty()) {
    return WriteTensorsToDir(options.output_dir, step.fetch_names,
                             outcome.results.outputs);
  }
  out << FormatOutputs(step.fetch_names, outcome.results.outputs, options.json);
  return Status::Ok();
}

std::string FormatOutputs(const std::vector<std::string>& names,
                          const std::vector<Tensor>& tensors, bool json) {
  std::string out;
  if (json) {
    // In fetch order (a tensor fetched twice appears once).
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (size_t i = 0; i < tensors.size(); ++i) {
      j[names[i]] = nlohmann::ordered_json(TensorToJson(tensors[i]));
    }
    return j.dump(2) + "\n";
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    out += FormatTensor(names[i], tensors[i]);
  }
  return out;
}

Status CheckFetchFileNames(const std::vector<std::string>& names) {
  std::map<std::string, std::string> by_file;  // file -> first name
  for (const std::string& name : names) {
    std::string file = FetchFileName(name);
    auto [it, added] = by_file.emplace(file, name);
    if (!added && it->second != name) {
      return InvalidArgument(
          "--fetch {} and --fetch {} would both be written to {} in the "
          "--output-dir; fetch one of them per run",
          it->second, name, file);
    }
  }
  return Status::Ok();
}

Status WriteTensorsToDir(const std::string& dir,
                         const std::vector<std::string>& names,
                         const std::vector<Tensor>& tensors) {
  DFG_RETURN_IF_ERROR(CheckFetchFileNames(names));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return InvalidArgument("{}: cannot create directory: {}", dir,
                           ec.message());
  }
  std::vector<std::string> blobs;
  for (const Tensor& t : tensors) {
    DFG_ASSIGN_OR_RETURN(NpyArray array, NpyFromTensor(t));
    DFG_ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(array));
    blobs.push_back(std::move(bytes));
  }
  OutputFileSet files;  // every fetch's file or none
  for (size_t i = 0; i < names.size() && i < blobs.size(); ++i) {
    DFG_RETURN_IF_ERROR(WriteFileAtomically(
        (std::filesystem::path(dir) / FetchFileName(names[i])).string(),
        blobs[i]));
  }
  return files.Commit();
}

}  // namespace dfg
