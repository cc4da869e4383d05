#include "host/node_pressure.h"

#include <dirent.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace plegscope {
namespace {

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool parse_int(const std::string& s, int64_t& out) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size()) return false;
  out = v;
  return true;
}

// "avg10=1.23 avg60=0.50 avg300=0.10 total=12345" after the "some"/"full" word.
std::optional<PsiLine> parse_psi_fields(std::istringstream& in) {
  PsiLine line;
  int seen = 0;
  std::string field;
  while (in >> field) {
    auto eq = field.find('=');
    if (eq == std::string::npos) return std::nullopt;
    std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    if (key == "total") {
      int64_t v = 0;
      if (!parse_int(value, v)) return std::nullopt;
      line.total = static_cast<uint64_t>(v);
      seen |= 8;
      continue;
    }
    double v = 0;
    if (!parse_double(value, v)) return std::nullopt;
    if (key == "avg10") line.avg10 = v, seen |= 1;
    else if (key == "avg60") line.avg60 = v, seen |= 2;
    else if (key == "avg300") line.avg300 = v, seen |= 4;
  }
  if ((seen & 3) != 3) return std::nullopt;  // avg10 and avg60 are the ones we use
  return line;
}

}  // namespace

std::optional<Psi> parse_psi(const std::string& text) {
  Psi psi;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string kind;
    if (!(in >> kind)) continue;
    if (kind != "some" && kind != "full") continue;
    auto fields = parse_psi_fields(in);
    if (!fields) continue;
    (kind == "some" ? psi.some : psi.full) = *fields;
  }
  if (!psi.some && !psi.full) return std::nullopt;
  return psi;
}

std::optional<LoadAvg> parse_loadavg(const std::string& text) {
  std::istringstream in(text);
  std::string l1, l5, l15, tasks, last;
  if (!(in >> l1 >> l5 >> l15 >> tasks >> last)) return std::nullopt;
  LoadAvg out;
  if (!parse_double(l1, out.load1) || !parse_double(l5, out.load5) ||
      !parse_double(l15, out.load15))
    return std::nullopt;
  auto slash = tasks.find('/');
  if (slash == std::string::npos || !parse_int(tasks.substr(0, slash), out.runnable) ||
      !parse_int(tasks.substr(slash + 1), out.tasks) || !parse_int(last, out.last_pid))
    return std::nullopt;
  return out;
}

std::optional<int64_t> parse_single_int(const std::string& text) {
  std::istringstream in(text);
  std::string word, extra;
  if (!(in >> word) || (in >> extra)) return std::nullopt;
  int64_t v = 0;
  if (!parse_int(word, v)) return std::nullopt;
  return v;
}

std::optional<int> parse_stat_cpus(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  int cpus = 0;
  while (std::getline(lines, line))
    if (line.size() > 3 && line.compare(0, 3, "cpu") == 0 &&
        std::isdigit(static_cast<unsigned char>(line[3])))
      ++cpus;
  if (cpus == 0) return std::nullopt;
  return cpus;
}

NodePressureReader::NodePressureReader(std::string proc_path) : proc_path_(std::move(proc_path)) {}

std::optional<std::string> NodePressureReader::read_file(const std::string& relative) const {
  std::ifstream in(proc_path_ + "/" + relative);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

NodePressure NodePressureReader::read() const {
  NodePressure p;
  struct Resource {
    const char* file;
    std::optional<double>* avg10;
    std::optional<double>* avg60;
  } resources[] = {{"pressure/cpu", &p.cpu_some_avg10, &p.cpu_some_avg60},
                   {"pressure/io", &p.io_some_avg10, &p.io_some_avg60},
                   {"pressure/memory", &p.memory_some_avg10, &p.memory_some_avg60}};
  for (auto& r : resources) {
    auto text = read_file(r.file);
    if (!text) continue;  // no PSI on this kernel (or disabled): null, not an error
    auto psi = parse_psi(*text);
    if (!psi || !psi->some) continue;
    *r.avg10 = psi->some->avg10;
    *r.avg60 = psi->some->avg60;
  }
  if (auto text = read_file("loadavg")) {
    if (auto load = parse_loadavg(*text)) {
      p.load1 = load->load1;
      p.load5 = load->load5;
      p.load15 = load->load15;
      p.pids = load->tasks;
    }
  }
  if (auto text = read_file("stat")) p.cpus = parse_stat_cpus(*text);
  if (auto text = read_file("sys/kernel/pid_max")) p.pid_max = parse_single_int(*text);
  if (auto text = read_file("sys/kernel/threads-max")) p.threads_max = parse_single_int(*text);

  // loadavg's task count is the kernel's own, the one pid_max bounds; only
  // without it are /proc's numeric entries counted, a walk whose cost grows
  // with every pid on the host (threads included, as the kernel steps
  // through them) at every snapshot.
  if (p.pids) return p;
  if (DIR* dir = ::opendir(proc_path_.c_str())) {
    int64_t n = 0;
    while (dirent* e = ::readdir(dir)) {
      const char* name = e->d_name;
      bool numeric = *name != '\0';
      for (const char* c = name; *c; ++c) numeric = numeric && std::isdigit(static_cast<unsigned char>(*c));
      n += numeric;
    }
    ::closedir(dir);
    p.processes = n;
    if (n > 0) p.pids = n;  // without loadavg: processes, a lower bound
  }
  return p;
}

}  // namespace plegscope
