// The PLEG's flags, with the kubelet's defaults.
#include "common/flag_binding.h"
#include "pleg/pleg_options.h"

namespace plegscope {

void add_flags(CLI::App& app, PlegOptions& pleg) {
  add_duration_flag(app, "--relist-period", pleg.relist_period, "relist period, as the kubelet");
  add_duration_flag(app, "--relist-threshold", pleg.relist_threshold, "PLEG health threshold, as the kubelet");
  add_duration_flag(app, "--relist-backoff-max", pleg.relist_backoff_max,
                    "longest the relist period stretches while the runtime struggles; 0s: off", true);
  app.add_option_function<int>(
         "--event-channel-capacity",
         [&pleg](int capacity) {
           if (capacity < 1)
             throw UsageError{"--event-channel-capacity: must be at least 1, got " + std::to_string(capacity)};
           pleg.event_channel_capacity = static_cast<size_t>(capacity);
         },
         "PLEG event channel capacity")
      ->envname(flag_env("--event-channel-capacity"))
      ->default_str(std::to_string(pleg.event_channel_capacity));
  app.add_option_function<std::string>(
         "--evented-pleg",
         [&pleg](const std::string& evented) {
           if (evented == "auto") pleg.evented = EventedMode::Auto;
           else if (evented == "true") pleg.evented = EventedMode::On;
           else if (evented == "false") pleg.evented = EventedMode::Off;
           else throw UsageError{"--evented-pleg: invalid value \"" + evented + "\" (expected auto, true or false)"};
         },
         "false (the kubelet's generic relist, every release's default), true (only beside a kubelet running the "
         "EventedPLEG gate) or auto (beside a readable kubelet: evented only where it runs the EventedPLEG gate "
         "before 1.37; else evented whenever the runtime serves GetContainerEvents)")
      ->envname(flag_env("--evented-pleg"))
      ->default_str("false");
}

}  // namespace plegscope
