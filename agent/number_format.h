#pragma once
// Numbers for people, shared by the diagnoser's sentences and the renderers.
#include <string>

namespace plegscope::text {

// printf of one double: fmt("%.1f", 2.25) == "2.2".
std::string fmt(const char* format, double v);
// Integers as integers, then fewer decimals the larger the value.
std::string number(double v);

}  // namespace plegscope::text
