// The cause table against docs/runbook.md: for every cause id, the runbook
// section's Confirm / Fix / Do not paragraphs say word for word what the
// table says (placeholders filled the runbook's way). Editing one side alone
// fails here. Also the promises every remedy keeps on a live node.
#include "report/remedy.h"
#include "report/wording.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include "source_tree.h"

namespace plegscope {
namespace {

std::string read_runbook() {
  std::ifstream in(source_tree::root() + "/docs/runbook.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string collapse_spaces(const std::string& s) {
  std::string out;
  for (char ch : s) {
    bool space = ch == ' ' || ch == '\n' || ch == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : ch;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The "# Causes" part of the runbook: per "## id" section, its
// **Label.** paragraphs (lines joined, spaces collapsed) by label.
using Sections = std::map<std::string, std::map<std::string, std::string>>;
Sections cause_sections(const std::string& markdown) {
  Sections out;
  std::istringstream lines(markdown);
  std::string line, section, paragraph;
  bool in_causes = false;
  static const std::regex labelled(R"(^\*\*([A-Za-z ]+)\.\*\* (.*)$)");
  auto flush = [&] {
    std::smatch m;
    std::string p = collapse_spaces(paragraph);
    if (!section.empty() && std::regex_match(p, m, labelled)) out[section][m[1]] = m[2];
    paragraph.clear();
  };
  while (std::getline(lines, line)) {
    if (line.rfind("# ", 0) == 0) {
      flush();
      in_causes = line == "# Causes";
      section.clear();
    } else if (!in_causes) {
      continue;
    } else if (line.rfind("## ", 0) == 0) {
      flush();
      section = line.substr(3);
      out[section];
    } else if (line.find_first_not_of(" \t") == std::string::npos) {
      flush();
    } else {
      paragraph += " " + line;
    }
  }
  flush();
  return out;
}

// Every way the runbook and the table disagree, one line each.
std::vector<std::string> disagreements(const std::string& markdown) {
  std::vector<std::string> out;
  Sections sections = cause_sections(markdown);
  const CommandNames names = runbook_command_names();
  for (CauseId id : kAllCauses) {
    const std::string name = cause_name(id);
    auto section = sections.find(name);
    if (section == sections.end()) {
      out.push_back("no section ## " + name + " under # Causes");
      continue;
    }
    const CauseText& t = cause_text(id);
    const std::pair<const char*, const char*> paragraphs[] = {
        {"Confirm", t.confirm}, {"Fix", t.fix}, {"Do not", t.never}};
    for (const auto& [label, text] : paragraphs) {
      const std::string want = collapse_spaces(fill_placeholders(text, names));
      auto got = section->second.find(label);
      if (got == section->second.end())
        out.push_back(name + ": no **" + label + ".** paragraph; the table says: " + want);
      else if (got->second != want)
        out.push_back(name + ": **" + label + ".** says\n    " + got->second +
                      "\n  the table says\n    " + want);
    }
    if (section->second.count("Meaning") == 0) out.push_back(name + ": no **Meaning.** paragraph");
  }
  for (const auto& [name, paragraphs] : sections)
    if (!cause_from_name(name)) out.push_back("## " + name + " under # Causes is not a cause id");
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(CauseTexts, RunbookSaysWhatTheTableSays) {
  const std::string runbook = read_runbook();
  ASSERT_FALSE(runbook.empty()) << "cannot read " << source_tree::root() << "/docs/runbook.md";
  EXPECT_EQ(cause_sections(runbook).size(), std::size(kAllCauses));
  auto problems = disagreements(runbook);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

// The disagreements once `from` (which must occur) is replaced by `to` in the runbook.
std::vector<std::string> after_edit(const std::string& from, const std::string& to) {
  std::string edited = read_runbook();
  auto at = edited.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) edited.replace(at, from.size(), to);
  return disagreements(edited);
}

// The check itself catches an edit to one side: a changed word in one
// paragraph, a paragraph gone, a section renamed.
TEST(CauseTexts, ARunbookEditedAloneIsCaught) {
  auto problems =
      after_edit("Remove exited containers a slice at a time", "Delete exited containers a slice at a time");
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_EQ(problems[0].rfind("message_too_large: **Fix.** says", 0), 0u) << problems[0];

  problems = after_edit("**Do not.** Restart the kubelet", "**Avoid.** Restart the kubelet");
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_EQ(problems[0].rfind("event_storm: no **Do not.** paragraph", 0), 0u) << problems[0];

  problems = after_edit("## node_pressure", "## node_stress");
  ASSERT_EQ(problems.size(), 2u) << joined(problems);
  EXPECT_EQ(problems[0], "no section ## node_pressure under # Causes");
  EXPECT_EQ(problems[1], "## node_stress under # Causes is not a cause id");
}

Report node(const std::string& endpoint, const std::string& runtime) {
  Report r;
  r.node = "worker-3";
  r.runtime.endpoint = endpoint;
  r.runtime.name = runtime;
  return r;
}

// The programs of one `…` span that stand where a command starts: at its
// beginning, after a pipe or `;`, inside `$(`, each past any `time`,
// `timeout N` or `xargs -r` in front of it.
struct CommandWord {
  std::string program;
  std::string before;  // the span up to the program
  std::string after;   // the rest of the span
};
std::vector<CommandWord> command_words(const std::string& span) {
  static const std::regex start(
      R"((?:^|\|\s*|;\s*|\$\()(?:time |timeout \d+ |xargs -r (?:-n \d+ )?)*([a-z][a-z0-9_-]*))");
  std::vector<CommandWord> out;
  for (std::sregex_iterator it(span.begin(), span.end(), start), end; it != end; ++it) {
    const auto& m = *it;
    out.push_back({m[1].str(), span.substr(0, m.position(1)), span.substr(m.position(1) + m.length(1))});
  }
  return out;
}

// What a remedy's reader runs on a sick node returns: crictl with its own
// deadline, whatever else can block under `timeout`, and no procps tool (ps,
// pgrep, pidof, pkill, top read every process's cmdline, which blocks behind a
// process in D). The runbook's blocks are run against a frozen containerd by
// tests/e2e/test_runbook.py; these are the paragraphs.
TEST(CauseTexts, EveryNodeCommandOfARemedyIsBounded) {
  static const std::regex span(R"(`([^`]+)`)");
  static const std::regex timed(R"(timeout \d+ $)");
  const std::set<std::string> procps = {"ps", "pgrep", "pidof", "pkill", "top", "iotop"};
  const std::set<std::string> can_block = {"journalctl", "dmesg", "iostat", "pidstat", "df", "findmnt", "curl"};
  const CommandNames names = runbook_command_names();
  for (CauseId id : kAllCauses) {
    const CauseText& t = cause_text(id);
    for (const char* paragraph : {t.confirm, t.fix}) {
      const std::string text = fill_placeholders(paragraph, names);
      for (std::sregex_iterator it(text.begin(), text.end(), span), end; it != end; ++it) {
        const std::string command = (*it)[1];
        if (command.find(' ') == std::string::npos) continue;  // a name (`ps`, `ctr`), not a command line
        for (const CommandWord& w : command_words(command)) {
          SCOPED_TRACE(std::string(cause_name(id)) + ": `" + command + "`");
          EXPECT_EQ(procps.count(w.program), 0u) << w.program << " reads every process's cmdline";
          if (w.program == "crictl") {
            EXPECT_EQ(w.after.rfind(" --timeout ", 0), 0u) << "crictl without --timeout";
          }
          if (w.program == "ctr") {
            EXPECT_NE(w.after.find("--connect-timeout"), std::string::npos);
          }
          if (w.program == "curl") {
            EXPECT_NE(w.after.find(" -m "), std::string::npos) << "curl without -m";
          } else if (can_block.count(w.program)) {
            EXPECT_TRUE(std::regex_search(w.before, timed)) << w.program;
          }
        }
      }
    }
  }
}

TEST(CauseTexts, CommandWordsAreFoundWhereCommandsStart) {
  std::vector<std::string> programs;
  for (const auto& w :
       command_words("timeout 20 journalctl -u x | grep -v ps | timeout 60 xargs -r crictl rm; time df $(pidof y)"))
    programs.push_back(w.program);
  EXPECT_EQ(programs, (std::vector<std::string>{"journalctl", "grep", "crictl", "df", "pidof"}));
  EXPECT_EQ(command_words("timeout 5 df /")[0].before, "timeout 5 ");
}

// What tests/diagnose/diag_common.py checks on live reports, for every cause
// and runtime: a command to run, and a reboot only ever advised against.
TEST(CauseTexts, EveryRemedyHasACommandAndNeverAdvisesAReboot) {
  const Report nodes[] = {node("unix:///run/containerd/containerd.sock", "containerd"),
                            node("unix:///var/run/crio/crio.sock", "cri-o"), node("", "")};
  static const std::regex placeholder(R"(\{[a-z_]+\})");
  for (const Report& s : nodes)
    for (CauseId id : kAllCauses) {
      const std::string text = remedy(id, s);
      SCOPED_TRACE(std::string(cause_name(id)) + " on " + s.runtime.endpoint + ": " + text);
      EXPECT_TRUE(text.find("crictl") != std::string::npos ||
                  text.find("/proc/pressure") != std::string::npos);
      EXPECT_EQ(text.rfind("Confirm: ", 0), 0u);
      EXPECT_NE(text.find(" Fix: "), std::string::npos);
      EXPECT_NE(text.find(" Do not: "), std::string::npos);
      EXPECT_FALSE(std::regex_search(text, placeholder)) << "a placeholder left unfilled";
      std::string lower = text;
      for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      for (size_t at = lower.find("reboot"); at != std::string::npos;
           at = lower.find("reboot", at + 1)) {
        const std::string before = lower.substr(at < 30 ? 0 : at - 30, at < 30 ? at : 30);
        EXPECT_TRUE(before.find("not") != std::string::npos ||
                    before.find("never") != std::string::npos)
            << "\"reboot\" not negated at " << at;
      }
    }
}

TEST(CauseTexts, RemedyNamesTheNodesOwnRuntime) {
  const std::string crio =
      remedy(CauseId::kRuntimeHung, node("unix:///var/run/crio/crio.sock", "cri-o"));
  EXPECT_NE(crio.find("crictl --timeout 10s --runtime-endpoint unix:///var/run/crio/crio.sock ps -a -q"),
            std::string::npos)
      << crio;
  EXPECT_NE(crio.find("systemctl restart crio"), std::string::npos) << crio;
  const std::string down = remedy(CauseId::kRuntimeUnavailable,
                                  node("unix:///run/containerd/containerd.sock", "containerd"));
  EXPECT_NE(down.find("ls -l /run/containerd/containerd.sock"), std::string::npos) << down;
  EXPECT_NE(down.find("/var/lib/containerd"), std::string::npos) << down;
  const std::string storm =
      remedy(CauseId::kEventStorm, node("unix:///run/containerd/containerd.sock", "containerd"));
  EXPECT_NE(storm.find("spec.nodeName=worker-3"), std::string::npos) << storm;
  EXPECT_NE(remedy(CauseId::kRuntimeSlow, node("unix:///var/run/crio/crio.sock", "cri-o"))
                .find("/var/lib/containers"),
            std::string::npos);
}

}  // namespace
}  // namespace plegscope
