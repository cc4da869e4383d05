// The pattern table against the lines the kubelet, containerd and systemd
// actually write. Pure: no journal, no I/O.
#include "journal/journal_marks.h"

#include <gtest/gtest.h>

#include <set>

namespace plegscope {
namespace {

// Lines as the kubelet (klog) writes them to its journal stream.
constexpr std::string_view kPlegLine =
    R"(E1124 05:00:00.000000    1234 kubelet.go:2345] "Skipping pod synchronization" )"
    R"(err="PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s")";
constexpr std::string_view kSkippingRuntimeDown =
    R"(E1124 05:00:00.000000    1234 kubelet.go:2345] "Skipping pod synchronization" )"
    R"(err="container runtime is down")";
constexpr std::string_view kErrorSyncing =
    R"(E1124 05:00:01.000000    1234 pod_workers.go:1300] "Error syncing pod, skipping" )"
    R"(err="failed to \"StartContainer\" for \"app\" with CrashLoopBackOff" pod="default/web-0")";
constexpr std::string_view kRelistFailed =
    R"(E1124 05:00:02.000000    1234 generic.go:238] "GenericPLEG: Unable to retrieve pods" )"
    R"(err="rpc error: code = DeadlineExceeded desc = context deadline exceeded")";
constexpr std::string_view kListDeadline =
    R"(E1124 05:00:02.000000    1234 remote_runtime.go:390] "ListContainers with filter from )"
    R"(runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline )"
    R"(exceeded" filter="&ContainerFilter{}")";
constexpr std::string_view kStatusUnavailable =
    R"(E1124 05:00:03.000000    1234 remote_runtime.go:633] "ContainerStatus from runtime service )"
    R"(failed" err="rpc error: code = Unavailable desc = connection error")";
constexpr std::string_view kKubeletVersion =
    R"(I1124 04:59:00.000000    1234 server.go:487] "Kubelet version" kubeletVersion="v1.29.3")";

EntryFields own_line(std::string_view systemd_unit, std::string_view message) {
  EntryFields e;
  e.systemd_unit = systemd_unit;
  e.message = message;
  e.pid = "1234";
  return e;
}

EntryFields manager_line(std::string_view unit, std::string_view message,
                         std::string_view message_id) {
  EntryFields e;
  e.systemd_unit = "init.scope";
  e.pid = "1";
  e.unit = unit;
  e.message = message;
  e.message_id = message_id;
  return e;
}

std::optional<MarkKind> kind_of(const EntryFields& e, const UnitRoles& roles = UnitRoles()) {
  auto c = classify_entry(e, roles);
  if (!c) return std::nullopt;
  return c->kind;
}

TEST(JournalMarkKinds, NamesAreDistinctSnakeCaseIds) {
  std::set<std::string_view> names;
  for (const MarkPattern& p : mark_patterns()) names.insert(mark_kind_name(p.kind));
  EXPECT_EQ(names.size(), 14u) << "every kind has a pattern and a distinct name";
  for (std::string_view n : names) {
    EXPECT_EQ(n.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string_view::npos) << n;
  }
  EXPECT_EQ(mark_kind_name(MarkKind::kPlegNotHealthy), "pleg_not_healthy");  // DESIGN.md's example
}

TEST(JournalKubeletLines, PlegNotHealthyInsideSkippingIsThePlegMark) {
  auto c = classify_entry(own_line("kubelet.service", kPlegLine), UnitRoles());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, MarkKind::kPlegNotHealthy);
  EXPECT_EQ(c->unit, "kubelet.service");
}

TEST(JournalKubeletLines, EachLineItsKind) {
  EXPECT_EQ(kind_of(own_line("kubelet.service", kSkippingRuntimeDown)), MarkKind::kSkippingPodSync);
  EXPECT_EQ(kind_of(own_line("kubelet.service", kErrorSyncing)), MarkKind::kErrorSyncingPod);
  // The relist's own failure names the relist, whatever the CRI error inside.
  EXPECT_EQ(kind_of(own_line("kubelet.service", kRelistFailed)), MarkKind::kRelistError);
  EXPECT_EQ(kind_of(own_line("kubelet.service", kListDeadline)), MarkKind::kCriDeadlineExceeded);
  EXPECT_EQ(kind_of(own_line("kubelet.service", kStatusUnavailable)), MarkKind::kCriError);
  EXPECT_EQ(kind_of(own_line("kubelet.service", kKubeletVersion)), MarkKind::kKubeletStarted);
}

TEST(JournalKubeletLines, OrdinaryLinesAreNoMark) {
  EXPECT_FALSE(kind_of(own_line(
      "kubelet.service", R"(I1124 05:00:00.000000 1234 kubelet.go:2400] "SyncLoop UPDATE")")));
  EXPECT_FALSE(kind_of(own_line("kubelet.service", "")));
}

TEST(JournalUnits, TheKubeletsWordsFromAnotherUnitAreNoMark) {
  // Someone grepping logs in a shell, or a pod's log shipper echoing them.
  EXPECT_FALSE(kind_of(own_line("sshd.service", kPlegLine)));
  EXPECT_FALSE(kind_of(own_line("", kPlegLine)));
  // The kubelet's patterns are the kubelet's: containerd saying "rpc error" is its own business.
  EXPECT_FALSE(kind_of(own_line("containerd.service", kStatusUnavailable)));
}

TEST(JournalUnits, RuntimeStartLine) {
  auto c = classify_entry(
      own_line("containerd.service", R"(time="2026-11-24T05:00:00Z" level=info )"
                                     R"(msg="containerd successfully booted in 0.052s")"),
      UnitRoles());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, MarkKind::kRuntimeStarted);
  EXPECT_EQ(c->unit, "containerd.service");
}

TEST(JournalUnits, NriPluginClosedLine) {
  // containerd 2.3.7's own line when NRI gives up on a plugin at its request timeout.
  auto c = classify_entry(
      own_line("containerd.service", R"(time="2026-12-07T12:06:38.241324597Z" level=error )"
                                     R"(msg="closing plugin 10-stall, failed to handle CreateContainer )"
                                     R"(request: context deadline exceeded")"),
      UnitRoles());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, MarkKind::kNriPluginClosed);
  EXPECT_EQ(mark_kind_name(c->kind), "nri_plugin_closed");
  // The same words from the kubelet are no mark of the runtime's.
  EXPECT_FALSE(kind_of(own_line("kubelet.service", "closing plugin 10-stall")).has_value());
}

TEST(JournalUnits, OverriddenRoles) {
  UnitRoles roles;
  roles.kubelet_unit = "snap.kubelite.daemon-kubelite.service";
  roles.runtime_units = {"k3s.service"};
  EXPECT_EQ(kind_of(own_line("snap.kubelite.daemon-kubelite.service", kPlegLine), roles),
            MarkKind::kPlegNotHealthy);
  EXPECT_FALSE(kind_of(own_line("kubelet.service", kPlegLine), roles));
  EXPECT_EQ(kind_of(manager_line("k3s.service", "Stopping k3s.service - Lightweight Kubernetes...",
                                 "de5b426a63be47a7b6ac3eaac82e2f6f"),
                    roles),
            MarkKind::kUnitStopping);
}

// systemd 252's job messages (src/core/job.c): PID 1, init.scope, UNIT=, catalog ids.
TEST(JournalManagerLines, StartStopByCatalogId) {
  auto c =
      classify_entry(manager_line("kubelet.service",
                                  "Started kubelet.service - kubelet: The Kubernetes Node Agent.",
                                  "39f53479d3a045ac8e11786248231fbf"),
                     UnitRoles());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, MarkKind::kUnitStarted);
  EXPECT_EQ(c->unit, "kubelet.service") << "the unit is UNIT=, not init.scope";
  EXPECT_EQ(kind_of(manager_line("containerd.service",
                                 "Stopping containerd.service - containerd container runtime...",
                                 "de5b426a63be47a7b6ac3eaac82e2f6f")),
            MarkKind::kUnitStopping);
  EXPECT_EQ(kind_of(manager_line("containerd.service",
                                 "Stopped containerd.service - containerd container runtime.",
                                 "9d1aaa27d60140bd96365438aad20286")),
            MarkKind::kUnitStopped);
  EXPECT_EQ(
      kind_of(manager_line("kubelet.service", "kubelet.service: Failed with result 'exit-code'.",
                           "d9b373ed55a64feb8242e02dbe79a49c")),
      MarkKind::kUnitFailed);
  EXPECT_EQ(kind_of(manager_line("kubelet.service",
                                 "kubelet.service: Scheduled restart job, restart counter is at 7.",
                                 "5eb03494b6584870a536b337290809b3")),
            MarkKind::kUnitRestartScheduled);
}

TEST(JournalManagerLines, CatalogIdDecidesOverWording) {
  // Odd wording, right id: the id wins (wording changes across versions).
  EXPECT_EQ(kind_of(manager_line("kubelet.service", "Started kubelet (odd wording).",
                                 "9d1aaa27d60140bd96365438aad20286")),
            MarkKind::kUnitStopped);
  // An id the table does not list ("Reloading"): no mark, even if the text starts with "Started ".
  EXPECT_FALSE(kind_of(
      manager_line("kubelet.service", "Started reloading", "d34d037fff1847e6ae669a370e694725")));
}

TEST(JournalManagerLines, WordingWhenNoCatalogId) {
  // Older systemd, or a forwarder that dropped MESSAGE_ID.
  EXPECT_EQ(
      kind_of(manager_line("kubelet.service", "Started kubelet: The Kubernetes Node Agent.", "")),
      MarkKind::kUnitStarted);
  EXPECT_EQ(
      kind_of(manager_line("kubelet.service", "Failed to start kubelet.service - kubelet.", "")),
      MarkKind::kUnitFailed);
}

TEST(JournalManagerLines, OtherUnitsAndOtherProcesses) {
  EXPECT_FALSE(
      kind_of(manager_line("ssh.service", "Started ssh.service - OpenBSD Secure Shell server.",
                           "39f53479d3a045ac8e11786248231fbf")));
  // UNIT= from a process that is not PID 1 is no systemd job line.
  EntryFields e =
      manager_line("kubelet.service", "Started kubelet", "39f53479d3a045ac8e11786248231fbf");
  e.pid = "4242";
  EXPECT_FALSE(kind_of(e));
}

TEST(JournalPrintableMessage, ShortAsciiKept) {
  bool cut = true;
  EXPECT_EQ(printable_message("PLEG is not healthy", 512, &cut), "PLEG is not healthy");
  EXPECT_FALSE(cut);
  EXPECT_EQ(printable_message("0123456789", 10, &cut), "0123456789");
  EXPECT_FALSE(cut) << "exactly at the bound is not cut";
}

TEST(JournalPrintableMessage, LongCutWithinBoundOnACharacter) {
  bool cut = false;
  const std::string long_text(5000, 'x');
  std::string out = printable_message(long_text, 100, &cut);
  EXPECT_TRUE(cut);
  EXPECT_LE(out.size(), 100u);
  EXPECT_EQ(out.substr(out.size() - 3), "\xE2\x80\xA6");
  // "é" is two bytes: never split.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\xC3\xA9";
  out = printable_message(accents, 10, &cut);
  EXPECT_TRUE(cut);
  EXPECT_EQ(out, "\xC3\xA9\xC3\xA9\xC3\xA9\xE2\x80\xA6");
}

TEST(JournalPrintableMessage, BinaryBytesReplaced) {
  bool cut = true;
  static const char kRaw[] = "PLEG\0is\nnot\xff\xfehealthy\tok\xed\xa0\x80";
  const std::string raw(kRaw, sizeof(kRaw) - 1);
  EXPECT_EQ(printable_message(raw, 512, &cut),
            "PLEG\xEF\xBF\xBDis\xEF\xBF\xBDnot\xEF\xBF\xBD\xEF\xBF\xBDhealthy\tok"
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_FALSE(cut);
  // Truncated multibyte at the end.
  EXPECT_EQ(printable_message("ab\xE2\x80", 512, &cut), "ab\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(JournalPrintableMessage, TinyBounds) {
  bool cut = false;
  EXPECT_EQ(printable_message("abcdef", 0, &cut), "");
  EXPECT_TRUE(cut);
  EXPECT_EQ(printable_message("abcdef", 3, &cut), "\xE2\x80\xA6");
  EXPECT_TRUE(cut);
  EXPECT_EQ(printable_message("", 3, &cut), "");
  EXPECT_FALSE(cut);
}

}  // namespace
}  // namespace plegscope
