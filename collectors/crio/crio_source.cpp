#include "crio/crio_source.h"

#include <sys/stat.h>

#include <algorithm>

#include "cri/grpc_runtime_client.h"

namespace plegscope {
namespace {

std::string failure(const HttpResult& r, const char* page) {
  if (r.completed()) return std::string(page) + " answered HTTP " + std::to_string(r.status);
  return std::string(page) + ": " + (r.error_detail.empty() ? "no answer" : r.error_detail);
}

bool process_exists(const std::string& proc, int64_t pid) {
  if (pid <= 0) return false;
  struct stat st {};
  return ::stat((proc + "/" + std::to_string(pid)).c_str(), &st) == 0;
}

}  // namespace

CrioPagesSource::CrioPagesSource(const Options& options, const SourceContext& context)
    : options_(options),
      socket_(context.host_scanned ? context.runtime_options.endpoint : std::string()),
      proc_path_(context.proc_path) {
  evidence_.socket = socket_;
}

void CrioPagesSource::start(SourceLanes lanes) {
  lanes.waiting.every(options_.period, [this] {
    if (!stopping_) refresh();
  });
}

CrioPagesEvidence CrioPagesSource::evidence() const {
  std::lock_guard<std::mutex> lock(mu_);
  return evidence_;
}

void CrioPagesSource::read_container(const std::string& id, const CrioPagesEvidence& before, CrioPagesEvidence& out) {
  HttpResult r = get_crio_page(socket_, CrioPage::kContainer, id, options_.timeout);
  if (!r.ok()) {
    // CRI-O no longer knows it (removed since the list): nothing stale.
    if (r.completed() && r.status == 404) return;
    out.error = failure(r, "/containers/<id>");
    return;
  }
  out.reachable = true;
  auto page = parse_crio_container(r.body);
  if (!page) {
    out.error = "/containers/<id>: not CRI-O's container JSON";
    return;
  }
  CrioPagesEvidence::Unmonitored u{id, page->name, page->sandbox, page->pid,
                                   process_exists(proc_path_, page->pid), 1};
  for (const auto& seen : before.unmonitored)
    if (seen.id == id) u.checks = seen.checks + 1;
  out.unmonitored.push_back(std::move(u));
}

void CrioPagesSource::refresh() {
  CrioPagesAsks asks = enabled() && asks_ ? asks_() : CrioPagesAsks{};
  if (!asks.reads_crio) {
    std::lock_guard<std::mutex> lock(mu_);
    evidence_ = CrioPagesEvidence{};
    return;
  }
  const CrioPagesEvidence before = evidence();
  CrioPagesEvidence out;
  out.socket = socket_;
  out.info = before.info;
  out.reachable = before.reachable;
  if (!out.info) {
    HttpResult r = get_crio_page(socket_, CrioPage::kInfo, {}, options_.timeout);
    if (r.ok()) out.info = parse_crio_info(r.body);
    out.reachable = r.ok() && out.info;
    if (!out.reachable) out.error = r.ok() ? "/info: not CRI-O's info JSON" : failure(r, "/info");
  }
  std::vector<std::string> ids = std::move(asks.candidates);
  if (ids.size() > options_.max_containers) ids.resize(options_.max_containers);
  for (const auto& id : ids) {
    if (stopping_) break;
    read_container(id, before, out);
  }
  std::lock_guard<std::mutex> lock(mu_);
  evidence_ = std::move(out);
}

HttpResult CrioPagesSource::goroutines() const {
  return get_crio_page(socket_, CrioPage::kGoroutines, {}, std::chrono::milliseconds(10000));
}

}  // namespace plegscope
