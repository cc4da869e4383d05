#pragma once
// `/diagnose?format=html`: one self-contained page (inline CSS and SVG, no
// scripts, no external assets) for the on-call engineer's browser.
#include <string>

#include "diagnoser/diagnoser.h"

namespace plegscope {

std::string render_html(const Report& report);

// &, <, >, " and ' escaped.
std::string html_escape(const std::string& text);

}  // namespace plegscope
