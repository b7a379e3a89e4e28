// The man pages (man/man1/, laid out for MANPATH) against the CLI they
// describe: one page per subcommand, the same header on every page, and each
// page's synopsis listing -o, -f and --json exactly when the subcommand takes
// them, as the --help footer says.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/run_dfg_test_util.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;
using testing::RunDfg;

fs::path ManDir() { return fs::path(testing::SourceDir()) / "man" / "man1"; }

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The subcommands `dfg --help` lists.
std::vector<std::string> Subcommands() {
  std::string help = RunDfg({"--help"}).out;
  std::string section = help.substr(help.find("Subcommands:"));
  std::vector<std::string> names;
  std::regex line(R"(\n  ([a-z]+) )");
  for (std::sregex_iterator it(section.begin(), section.end(), line), end;
       it != end; ++it) {
    names.push_back((*it)[1]);
  }
  return names;
}

// Where a page documents options: its SYNOPSIS (between .SH SYNOPSIS and
// the next .SH) and the tag line after each .TP of its OPTIONS.
std::string Synopsis(const std::string& page) {
  size_t begin = page.find(".SH SYNOPSIS");
  size_t end = page.find("\n.SH", begin + 1);
  std::string out = page.substr(begin, end - begin);
  for (size_t tp = page.find("\n.TP\n"); tp != std::string::npos;
       tp = page.find("\n.TP\n", tp + 1)) {
    size_t line = tp + 5;
    out += "\n" + page.substr(line, page.find('\n', line) - line);
  }
  return out;
}

// The footer's paragraph on `option`, up to the next option's line.
std::string FooterParagraph(const std::string& help, const std::string& from,
                            const std::string& to) {
  size_t begin = help.find(from);
  size_t end = help.find(to, begin);
  return help.substr(begin, end - begin);
}

TEST_CASE("every subcommand has a man page under man/man1 and no page more",
          "[cli][man]") {
  std::set<std::string> pages;
  for (const auto& entry : fs::directory_iterator(ManDir())) {
    pages.insert(entry.path().filename().string());
  }
  std::set<std::string> expected = {"dfg.1"};
  for (const std::string& sub : Subcommands()) {
    expected.insert("dfg-" + sub + ".1");
  }
  CHECK(Subcommands().size() >= 11);
  CHECK(pages == expected);
}

TEST_CASE("every man page has the same header", "[cli][man]") {
  std::regex th(
      R"re(\.TH (DFG(\\-[A-Z]+)?) 1 "(\d{4}-\d\d-\d\d)" "dfg ([0-9.]+)" "dfg manual")re");
  std::set<std::string> dates, versions;
  for (const auto& entry : fs::directory_iterator(ManDir())) {
    std::string page = Slurp(entry.path());
    std::string first = page.substr(0, page.find('\n'));
    INFO(entry.path().filename().string() << ": " << first);
    std::smatch m;
    REQUIRE(std::regex_match(first, m, th));
    std::string stem = entry.path().stem().string();
    std::string name;
    for (char c : stem) {
      name += c == '-' ? std::string("\\-") : std::string(1, toupper(c));
    }
    CHECK(m[1] == name);
    dates.insert(m[3]);
    versions.insert(m[4]);
  }
  CHECK(dates.size() == 1);
  CHECK(versions == std::set<std::string>{DFG_VERSION});
}

TEST_CASE("man pages, --help and its footer agree on -o, -f and --json",
          "[cli][man]") {
  std::string footer = RunDfg({"--help"}).out;
  std::string o_text = FooterParagraph(footer, "-o, --output", "-f, --format");
  std::string f_text = FooterParagraph(footer, "-f, --format", "--json");
  std::string json_text = FooterParagraph(footer, "--json  ", "Exit status");
  for (const std::string& sub : Subcommands()) {
    INFO(sub);
    std::string help = RunDfg({sub, "--help"}).out;
    help = help.substr(0, help.find("Options several subcommands share"));
    std::string synopsis = Synopsis(Slurp(ManDir() / ("dfg-" + sub + ".1")));
    bool has_o = help.find("-o,--output") != std::string::npos;
    bool has_f = help.find("-f,--format") != std::string::npos;
    bool has_json = help.find("--json ") != std::string::npos;
    CHECK(has_o == std::regex_search(synopsis, std::regex(R"(\\-o\b)")));
    CHECK(has_f == std::regex_search(synopsis, std::regex(R"(\\-f\b)")));
    CHECK(has_json == (synopsis.find("\\-\\-json") != std::string::npos));
    // The footer names the exceptions to -o ("All but ..."), and who takes
    // -f and --json.
    std::regex word("\\b" + sub + "\\b");
    size_t all = o_text.find("All");
    std::string but = o_text.substr(all, o_text.find(';', all) - all);
    CHECK(has_o != std::regex_search(but, word));
    CHECK(has_f == std::regex_search(f_text, word));
    CHECK(has_json == std::regex_search(json_text, word));
  }
}

}  // namespace
}  // namespace dfg
