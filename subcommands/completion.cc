// dfg completion: the bash or zsh completion script, generated from the
// command line itself (every subcommand, flag and choice), so it cannot
// drift from the flags. The hidden --list-signatures, --list-tags,
// --list-inputs and --list-outputs are what the scripts call to complete
// --signature, --meta-graph-tag, --feed and --fetch.
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <set>

#include "lib/io/graph_io.h"
#include "lib/io/graph_summary.h"
#include "subcommands/completion_script.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct CompletionFlags {
  std::string shell;
  OutputFlags output;
  std::string list_signatures;  // a model path: print its signature keys
  std::string tag;              // with --list-signatures: the meta graph
  std::string list_tags;        // a model path: print its meta graph tags
  std::string list_inputs;      // a model path: the names --feed takes
  std::string list_outputs;     // a model path: the names --fetch takes
  std::string signature;        // with --list-inputs/--list-outputs
};

// The signature every SavedModel 2 has for its init op: not one to run.
constexpr char kInitOpSignature[] = "__saved_model_init_op";

// The names a step's --feed (inputs) or --fetch takes: the keys of
// --signature, else of the default signature; without one, the graph's
// placeholders (nodes nothing consumes).
std::vector<std::string> StepNames(const GraphSummary& summary,
                                   const std::string& signature, bool inputs) {
  const std::string& key =
      signature.empty() ? summary.default_signature : signature;
  std::vector<std::string> names;
  for (const GraphSummary::Signature& s : summary.signatures) {
    if (key.empty() || s.key != key) continue;
    for (const auto& t : inputs ? s.inputs : s.outputs) names.push_back(t.key);
    return names;
  }
  if (inputs) {
    for (const auto& i : summary.inputs) names.push_back(i.name);
    for (const auto& i : summary.defaulted_inputs) names.push_back(i.name);
  } else {
    for (const auto& o : summary.outputs) names.push_back(o.name);
  }
  return names;
}

// One word a line, for the scripts: the signature keys of the model's meta
// graph, or every tag of its meta graphs. Nothing (and exit 1, message on
// stderr) when the model cannot be read.
int ListKeys(Context& ctx, const CompletionFlags& flags) {
  ReadOptions options;
  options.meta_graph_tag = flags.tag;
  const std::string& path = !flags.list_tags.empty()     ? flags.list_tags
                            : !flags.list_inputs.empty() ? flags.list_inputs
                            : !flags.list_outputs.empty()
                                ? flags.list_outputs
                                : flags.list_signatures;
  StatusOr<GraphSummary> summary = ReadGraphSummary(path, *ctx.io.in, options);
  if (!summary.ok()) return ctx.Error(summary.status());
  if (!flags.list_tags.empty()) {
    std::set<std::string> tags;
    for (const std::vector<std::string>& set : summary->available_tag_sets) {
      tags.insert(set.begin(), set.end());
    }
    for (const std::string& tag : tags) *ctx.io.out << tag << "\n";
    return kExitOk;
  }
  if (!flags.list_inputs.empty() || !flags.list_outputs.empty()) {
    for (const std::string& name :
         StepNames(*summary, flags.signature, !flags.list_inputs.empty())) {
      *ctx.io.out << name << "\n";
    }
    return kExitOk;
  }
  for (const GraphSummary::Signature& signature : summary->signatures) {
    if (signature.key != kInitOpSignature) *ctx.io.out << signature.key << "\n";
  }
  return kExitOk;
}

int RunCompletion(Context& ctx, CLI::App& root, const CompletionFlags& flags) {
  if (!flags.list_signatures.empty() || !flags.list_tags.empty() ||
      !flags.list_inputs.empty() || !flags.list_outputs.empty()) {
    return ListKeys(ctx, flags);
  }
  if (flags.shell.empty()) return ctx.Usage("which shell? bash or zsh");
  std::string script = flags.shell == "bash" ? BashCompletionScript(root)
                                             : ZshCompletionScript(root);
  Status written = WriteOutput(ctx, flags.output, script, /*binary=*/false);
  if (!written.ok()) return ctx.Error(written);
  return kExitOk;
}

}  // namespace

void RegisterCompletion(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<CompletionFlags>();
  CLI::App* root = &app;
  CLI::App* sub = AddSubcommand(
      app, ctx, "completion", "Print the bash or zsh completion script",
      [flags, root](Context& c) { return RunCompletion(c, *root, *flags); });
  sub->add_option("shell", flags->shell, "bash or zsh")
      ->check(CLI::IsMember({"bash", "zsh"}));
  HintFile(sub->add_option("-o,--output", flags->output.output,
                           "output file; absent or - writes stdout"));
  // For the scripts themselves: hidden from --help and from completion.
  HintFile(sub->add_option("--list-signatures", flags->list_signatures,
                           "print the signature keys of this SavedModel"))
      ->group("");
  HintFile(sub->add_option("--list-tags", flags->list_tags,
                           "print the meta graph tags of this SavedModel"))
      ->group("");
  HintFile(sub->add_option("--list-inputs", flags->list_inputs,
                           "print the names --feed takes on this model"))
      ->group("");
  HintFile(sub->add_option("--list-outputs", flags->list_outputs,
                           "print the names --fetch takes on this model"))
      ->group("");
  sub->add_option("--tag", flags->tag, "with --list-*: meta graph tag")
      ->group("");
  sub->add_option("--signature", flags->signature,
                  "with --list-inputs/--list-outputs: signature key")
      ->group("");
  sub->footer(
      "Enable completion in the running shell:\n"
      "  source <(dfg completion bash)     # bash\n"
      "  source <(dfg completion zsh)      # zsh, after compinit\n"
      "or install the script where the shell looks for completions\n"
      "(cmake --install does: share/bash-completion/completions/dfg and\n"
      "share/zsh/site-functions/_dfg).");
}

}  // namespace dfg
