#pragma once
// Every thread of the agent carries a name (/proc/PID/task/TID/comm, what
// top -H and the bench's thread census show), so its owner is known
// without a debugger.
#include <pthread.h>

#include <string>

namespace plegscope {

// Names the calling thread; Linux keeps at most 15 bytes.
inline void name_this_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace plegscope
