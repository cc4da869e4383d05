#include "report/sections/render_util.h"

#include <sstream>

#include "report/html.h"

namespace plegscope::report {

std::string wrap(const std::string& text, const std::string& indent, size_t width) {
  std::istringstream words(text);
  std::string word, line, out;
  while (words >> word) {
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

std::string hanging_wrap(const std::string& text, const std::string& indent, const std::string& more) {
  std::string out = wrap(text, more);
  return out.empty() ? out : indent + out.substr(more.size());
}

std::string pad(std::string s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string with_code(const std::string& text) {
  std::string out;
  bool in_code = false;
  std::string chunk;
  for (char ch : text) {
    if (ch == '`') {
      out += in_code ? "<code>" + html_escape(chunk) + "</code>" : html_escape(chunk);
      chunk.clear();
      in_code = !in_code;
    } else {
      chunk += ch;
    }
  }
  out += html_escape(in_code ? "`" + chunk : chunk);
  return out;
}

}  // namespace plegscope::report
