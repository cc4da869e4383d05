#include "common/flag_binding.h"

#include <cctype>

#include "common/go_duration.h"

namespace plegscope {

std::string flag_env(const std::string& flag) {
  std::string env = "PLEGSCOPE_";
  for (char c : flag.substr(2)) env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

CLI::Option* add_duration_flag(CLI::App& app, const std::string& flag, Duration& target, const std::string& help,
                               bool allow_zero) {
  return app
      .add_option_function<std::string>(
          flag,
          [&target, flag, allow_zero](const std::string& text) {
            auto d = parse_go_duration(text);
            if (!d || d->count() < 0 || (!allow_zero && d->count() == 0))
              throw UsageError{flag + ": invalid duration \"" + text +
                               "\" (expected a positive Go duration such as 500ms, 1s, 3m, 1h30m)"};
            target = *d;
          },
          help)
      ->envname(flag_env(flag))
      ->default_str(format_go_duration(target));
}

CLI::Option* add_text_flag(CLI::App& app, const std::string& flag, std::string& target, const std::string& help) {
  return app.add_option(flag, target, help)->envname(flag_env(flag))->capture_default_str();
}

CLI::Option* add_switch_flag(CLI::App& app, const std::string& flag, bool& target, const std::string& help) {
  return app.add_flag(flag, target, help)->envname(flag_env(flag));
}

CLI::Option* add_url_flag(CLI::App& app, const std::string& flag, std::string& target, const std::string& help,
                          const std::string& default_text, const char* example) {
  return app
      .add_option_function<std::string>(
          flag,
          [&target, flag, example](const std::string& value) {
            if (value == "off" || value.empty()) {
              target.clear();
              return;
            }
            if (value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0)
              throw UsageError{flag + ": invalid value \"" + value + "\" (expected off or a URL such as " + example +
                               ")"};
            target = value;
          },
          help)
      ->envname(flag_env(flag))
      ->default_str(default_text);
}

}  // namespace plegscope
