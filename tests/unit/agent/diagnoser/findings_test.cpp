// The seam between deciding and speaking: the diagnoser returns typed
// findings and no words; every sentence is agent/report's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "snapshot_builder.h"
#include "source_tree.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;
namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The string literals of a C++ source that hold a space: English, in a rule.
std::vector<std::string> sentences(const std::string& source) {
  static const std::regex comment(R"(//[^\n]*)");
  static const std::regex literal(R"("(?:[^"\\\n]|\\.)*")");
  const std::string code = std::regex_replace(source, comment, "");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), literal); it != std::sregex_iterator(); ++it)
    if (it->str().find(' ') != std::string::npos) out.push_back(it->str());
  return out;
}

const fs::path kDiagnoser = fs::path(source_tree::root()) / "agent" / "diagnoser";

TEST(Findings, TheCheckSeesASentence) {
  EXPECT_EQ(sentences("f.reason = \"the runtime is down\"; // a \"quoted\" comment\n").size(), 1u);
  EXPECT_TRUE(sentences("f.evidence.push_back({\"in_flight{\" + op + \"}\", 1, {}});").empty());
}

TEST(Findings, NoRuleHoldsASentence) {
  int rules = 0, details = 0;
  for (const auto& entry : fs::directory_iterator(kDiagnoser / "rules")) {
    (entry.path().extension() == ".h" ? details : rules) += 1;
    for (const auto& s : sentences(read(entry.path())))
      ADD_FAILURE() << entry.path().filename() << " holds the sentence " << s;
  }
  EXPECT_EQ(rules, static_cast<int>(std::size(kAllCauses))) << "one rule file per row of cause_list.h";
  EXPECT_EQ(details, static_cast<int>(std::size(kAllCauses))) << "one details header per row of cause_list.h";
}

TEST(Findings, ACauseKeepsItsOwnDetails) {
  Finding f = make_finding(CauseId::kNriStall, Severity::kWarning, 0.5);
  EXPECT_EQ(f.details<NriStallDetails>().timeouts, 0);  // none recorded yet: the defaults
  f.details<NriStallDetails>().timeouts = 3;
  const Finding& read = f;
  EXPECT_EQ(read.details<NriStallDetails>().timeouts, 3);
  // Another cause's details are a caller's bug, loud on either side.
  EXPECT_THROW(f.details<CniSlowDetails>(), std::logic_error);
  EXPECT_THROW(read.details<CniSlowDetails>(), std::logic_error);
  // A finding whose id changed after its details were written keeps them
  // under the old cause: asking under the new one is refused too.
  f.id = CauseId::kCniSlow;
  EXPECT_THROW(f.details<CniSlowDetails>(), std::logic_error);
}

TEST(Findings, TheDiagnoserNeverIncludesTheReport) {
  for (const auto& entry : fs::recursive_directory_iterator(kDiagnoser))
    if (entry.is_regular_file()) {
      EXPECT_EQ(read(entry.path()).find("#include \"report/"), std::string::npos) << entry.path();
    }
}

TEST(Findings, AHungCallIsTypedEvidenceWithoutWords) {
  Builder b;
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 12;
  b.s.relist_in_progress_since = kNow - secs(12);
  Report r = b.findings();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kCallHung);
  EXPECT_EQ(c->op, op::kListContainers);
  EXPECT_DOUBLE_EQ(c->seconds, 12);
  EXPECT_DOUBLE_EQ(c->details<RuntimeHungDetails>().threshold_seconds, DiagnoserThresholds{}.hang_seconds);
  EXPECT_TRUE(c->summary.empty() && c->reason.empty() && c->action.empty() && c->remedy.empty());
  EXPECT_TRUE(r.summary.empty());
}

TEST(Findings, InteractionsAreRelationsNotSentences) {
  Builder b;
  b.s.pressure->io_some_avg10 = 60;  // well past 25%: strong
  b.s.operations[op::kListContainers] = op_stats(2, 3);
  b.s.operations[op::kListPodSandbox] = op_stats(2, 3);
  b.relists(20, relist(4.1, 4, 0.01));
  Report r = b.findings();
  const Cause* pressure = find(r, CauseId::kNodePressure);
  const Cause* slow = find(r, CauseId::kRuntimeSlow);
  ASSERT_TRUE(pressure && slow);
  ASSERT_EQ(pressure->relations.size(), 1u);
  EXPECT_EQ(pressure->relations[0].kind, Relation::Kind::kLikelyRootOf);
  EXPECT_EQ(pressure->relations[0].causes, std::vector<CauseId>{CauseId::kRuntimeSlow});
  ASSERT_EQ(slow->relations.size(), 1u);
  EXPECT_EQ(slow->relations[0].kind, Relation::Kind::kPressureMayExplain);
  EXPECT_EQ(r.causes.front().id, CauseId::kNodePressure);
}

TEST(Findings, EveryCauseNameRoundTrips) {
  for (CauseId id : kAllCauses) EXPECT_EQ(cause_from_name(cause_name(id)), id) << cause_name(id);
  EXPECT_FALSE(cause_from_name("runtime_sad"));
}

}  // namespace
}  // namespace plegscope
