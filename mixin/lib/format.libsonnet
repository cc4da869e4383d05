// Durations and numbers written the way Prometheus, its templates and the
// kubelet write them, so rules, descriptions and test expectations agree.
local pad(parts) = std.join('', [p[1] + p[0] for p in parts if p[1] != '']);

{
  // 180 -> "3m", 90 -> "1m30s", 10 -> "10s": PromQL ranges, `for:`, prose.
  promDuration(seconds)::
    local s = std.floor(seconds);
    assert s == seconds && s >= 0 : 'promDuration wants whole seconds, got %s' % seconds;
    if s == 0 then '0s' else
      pad([
        ['h', if s >= 3600 then std.toString(std.floor(s / 3600)) else ''],
        ['m', if s % 3600 >= 60 then std.toString(std.floor((s % 3600) / 60)) else ''],
        ['s', if s % 60 != 0 then std.toString(s % 60) else ''],
      ]),

  // Go's time.Duration.String for whole seconds: 180 -> "3m0s" (the kubelet's sentence).
  goDuration(seconds)::
    local s = std.floor(seconds);
    if s < 60 then '%ds' % s
    else if s < 3600 then '%dm%ds' % [std.floor(s / 60), s % 60]
    else '%dh%dm%ds' % [std.floor(s / 3600), std.floor((s % 3600) / 60), s % 60],

  // Go's %.4g for 1e-4 <= |v| < 1e4 (what the templates below need).
  g4(v)::
    if v == 0 then '0' else
      local a = std.abs(v);
      assert a >= 1e-4 && a < 1e4 : 'g4 out of range: %s' % v;
      local e = if a >= 1000 then 3 else if a >= 100 then 2 else if a >= 10 then 1
      else if a >= 1 then 0 else if a >= 0.1 then -1 else if a >= 0.01 then -2
      else if a >= 0.001 then -3 else -4;
      local decimals = 3 - e;
      local s = std.format('%.' + decimals + 'f', v);
      if decimals == 0 then s else std.rstripChars(std.rstripChars(s, '0'), '.'),

  // Prometheus' humanizeDuration template function.
  humanizeDuration(v)::
    if v < 60 then self.g4(v) + 's' else
      local d = std.floor(v);
      local h = std.floor(d / 3600), m = std.floor((d % 3600) / 60), s = d % 60;
      if h > 0 then '%dh %dm %ds' % [h, m, s] else '%dm %ds' % [m, s],

  // Prometheus' humanize for 1 <= v < 1000, humanize1024 and humanizePercentage.
  humanize(v):: self.g4(v),
  humanize1024(v)::
    local prefixes = ['', 'Ki', 'Mi', 'Gi', 'Ti'];
    local step(i, x) = if x >= 1024 && i < 4 then step(i + 1, x / 1024) else [i, x];
    local r = step(0, v);
    self.g4(r[1]) + prefixes[r[0]],
  humanizePercentage(v):: self.g4(v * 100) + '%',

  // Numbers inside PromQL: integers without a decimal point.
  num(v)::
    if std.floor(v) == v then '%d' % v
    else std.rstripChars(std.rstripChars(std.format('%.9f', v), '0'), '.'),
}
