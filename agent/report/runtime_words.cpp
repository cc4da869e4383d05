#include "report/runtime_words.h"

namespace plegscope {

const char* const* foreign_runtime_words(RuntimeFamily family) {
  static const char* const kOnCrio[] = {"containerd", "containerd-shim", "/run/containerd", "shim", "ctr ",
                                       "`ctr", "status lock", nullptr};
  static const char* const kOnContainerd[] = {"CRI-O", "crio", "/var/run/crio", "conmon", nullptr};
  static const char* const kNone[] = {nullptr};
  if (family == RuntimeFamily::kCrio) return kOnCrio;
  if (family == RuntimeFamily::kContainerd) return kOnContainerd;
  return kNone;
}

}  // namespace plegscope
