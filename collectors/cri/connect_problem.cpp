#include "cri/connect_problem.h"

#include <cerrno>

namespace plegscope {

ConnectProblem connect_problem_of(int connect_errno) {
  switch (connect_errno) {
    case 0: return ConnectProblem::kNone;
    case ENOENT:
    case ENOTDIR: return ConnectProblem::kNoSuchSocket;
    case EACCES:
    case EPERM: return ConnectProblem::kPermissionDenied;
    case ECONNREFUSED: return ConnectProblem::kConnectionRefused;
    case ENOTSOCK:
    case EPROTOTYPE: return ConnectProblem::kNotASocket;
    default: return ConnectProblem::kOther;
  }
}

ConnectProblem after_history(ConnectProblem connect_result, bool answered_before) {
  switch (connect_result) {
    case ConnectProblem::kNone:
    case ConnectProblem::kNotCri:
      return answered_before ? ConnectProblem::kNone : ConnectProblem::kNotCri;
    case ConnectProblem::kNoSuchSocket:
      return answered_before ? ConnectProblem::kSocketRemoved : ConnectProblem::kNoSuchSocket;
    default:
      return connect_result;
  }
}

bool agent_side(ConnectProblem p) {
  switch (p) {
    case ConnectProblem::kNoSuchSocket:
    case ConnectProblem::kPermissionDenied:
    case ConnectProblem::kNotASocket:
    case ConnectProblem::kNotCri:
      return true;
    default:
      return false;
  }
}

}  // namespace plegscope
