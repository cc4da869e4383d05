#include "host/process_stat.h"

#include <initializer_list>
#include <vector>

#include "host/host_files.h"

namespace plegscope::host {
namespace {

bool parse_i64(std::string_view s, int64_t& out) {
  bool negative = !s.empty() && s[0] == '-';
  uint64_t v = 0;
  if (!parse_u64(negative ? s.substr(1) : s, v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
  out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

// The next space-separated word of `rest`, advancing it.
std::string_view next_word(std::string_view& rest) {
  size_t start = rest.find_first_not_of(" \n");
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  size_t end = rest.find_first_of(" \n", start);
  std::string_view word = rest.substr(start, end == std::string_view::npos ? rest.npos : end - start);
  rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
  return word;
}

}  // namespace

std::optional<ProcessStat> parse_process_stat(std::string_view text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcessStat s;
  std::string_view pid_text = text.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (!parse_i64(pid_text, s.pid) || s.pid <= 0) return std::nullopt;
  s.comm.assign(text.substr(open + 1, close - open - 1));
  std::string_view rest = text.substr(close + 1);
  // Fields 3..22 follow the comm; 22 (starttime) is the last one we need.
  std::string_view fields[20];
  for (auto& f : fields) {
    f = next_word(rest);
    if (f.empty()) return std::nullopt;  // truncated
  }
  if (fields[0].size() != 1) return std::nullopt;
  s.state = fields[0][0];
  if (!parse_i64(fields[1], s.ppid) || !parse_i64(fields[17], s.num_threads) ||
      !parse_u64(fields[19], s.starttime))
    return std::nullopt;
  return s;
}

std::optional<double> parse_uptime(std::string_view text) {
  std::string_view rest = text;
  std::string_view word = next_word(rest);
  if (word.empty() || word.size() > 32) return std::nullopt;
  size_t dot = word.find('.');
  uint64_t whole = 0, frac = 0;
  if (!parse_u64(word.substr(0, dot), whole)) return std::nullopt;
  double value = static_cast<double>(whole);
  if (dot != std::string_view::npos) {
    std::string_view digits = word.substr(dot + 1);
    if (digits.empty() || digits.size() > 9 || !parse_u64(digits, frac)) return std::nullopt;
    double scale = 1;
    for (size_t i = 0; i < digits.size(); ++i) scale *= 10;
    value += static_cast<double>(frac) / scale;
  }
  return value;
}

std::optional<int64_t> parse_btime(std::string_view proc_stat) {
  size_t at = 0;
  while (at < proc_stat.size()) {
    size_t end = proc_stat.find('\n', at);
    std::string_view line = proc_stat.substr(at, end == std::string_view::npos ? proc_stat.npos : end - at);
    if (starts_with(line, "btime ")) {
      std::string_view rest = line.substr(6);
      int64_t v = 0;
      std::string_view word = next_word(rest);
      if (!parse_i64(word, v) || v <= 0 || !next_word(rest).empty()) return std::nullopt;
      return v;
    }
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return std::nullopt;
}

RuntimeRole runtime_role(std::string_view comm) {
  if (starts_with(comm, "containerd-shim")) return RuntimeRole::kShim;
  if (comm == "conmon") return RuntimeRole::kConmon;
  if (comm == "runc" || starts_with(comm, "runc:[") || comm == "crun") return RuntimeRole::kOci;
  if (comm == "containerd" || comm == "crio" || comm == "dockerd" || comm == "cri-dockerd")
    return RuntimeRole::kDaemon;
  return RuntimeRole::kNone;
}

const char* role_name(RuntimeRole r) {
  switch (r) {
    case RuntimeRole::kShim: return "shim";
    case RuntimeRole::kConmon: return "conmon";
    case RuntimeRole::kOci: return "oci_runtime";
    case RuntimeRole::kDaemon: return "daemon";
    case RuntimeRole::kNone: break;
  }
  return "none";
}

namespace {

std::vector<std::string_view> split_args(std::string_view cmdline) {
  std::vector<std::string_view> args;
  size_t at = 0;
  while (at < cmdline.size()) {
    size_t end = cmdline.find('\0', at);
    if (end == std::string_view::npos) end = cmdline.size();
    args.push_back(cmdline.substr(at, end - at));
    at = end + 1;
  }
  return args;
}

// The value of the first of `names` given, as "-name value" or "-name=value".
std::optional<std::string> arg_value(const std::vector<std::string_view>& args,
                                     std::initializer_list<std::string_view> names) {
  for (size_t i = 0; i < args.size(); ++i) {
    for (auto name : names) {
      if (args[i] == name && i + 1 < args.size() && !args[i + 1].empty()) return std::string(args[i + 1]);
      if (args[i].size() > name.size() + 1 && starts_with(args[i], name) && args[i][name.size()] == '=')
        return std::string(args[i].substr(name.size() + 1));
    }
  }
  return std::nullopt;
}

// A unix socket's path as the host names it: without the "unix://" scheme,
// and /var/run spelled /run (a symlink to it on every distribution the
// kubelet supports; kubelets are often given the /var/run spelling while
// containerd hands its shims the /run one).
std::string socket_path(std::string_view address) {
  if (starts_with(address, "unix://")) address.remove_prefix(7);
  std::string path(address);
  if (starts_with(path, "/var/run/")) path.erase(0, 4);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

std::optional<std::string> parse_shim_address(std::string_view cmdline) {
  return arg_value(split_args(cmdline), {"-address", "--address"});
}

std::optional<std::string> parse_shim_namespace(std::string_view cmdline) {
  return arg_value(split_args(cmdline), {"-namespace", "--namespace"});
}

bool shim_serves_socket(std::string_view shim_address, std::string_view runtime_socket) {
  return socket_path(shim_address) == socket_path(runtime_socket);
}

std::optional<std::string> parse_helper_owner(std::string_view cmdline, RuntimeRole role) {
  std::vector<std::string_view> args = split_args(cmdline);
  auto value_of = [&](std::initializer_list<std::string_view> names) { return arg_value(args, names); };
  if (role == RuntimeRole::kShim) {
    if (auto id = value_of({"-id", "--id"})) return id;
    if (auto workdir = value_of({"-workdir", "--workdir"})) {  // shim v1: .../<namespace>/<id>
      while (!workdir->empty() && workdir->back() == '/') workdir->pop_back();
      size_t slash = workdir->rfind('/');
      std::string id = slash == std::string::npos ? *workdir : workdir->substr(slash + 1);
      if (!id.empty()) return id;
    }
    return std::nullopt;
  }
  if (role == RuntimeRole::kConmon) return value_of({"-c", "--cid"});
  return std::nullopt;
}

}  // namespace plegscope::host
