#pragma once
// What the sections share to lay words out: text wrapping and padding, and
// HTML with `code` spans. Stateless.
#include <string>

namespace plegscope::report {

// Greedy word wrap, every line prefixed with `indent`.
std::string wrap(const std::string& text, const std::string& indent, size_t width = 92);
// The first line at `indent`, the ones it wraps onto further in.
std::string hanging_wrap(const std::string& text, const std::string& indent, const std::string& more);
std::string pad(std::string s, size_t width, bool right = false);
// Escapes, and turns `code` spans (as remedies write commands) into <code>.
std::string with_code(const std::string& text);

}  // namespace plegscope::report
