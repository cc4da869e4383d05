// Building blocks for promtool rule tests rendered from _config: series
// written from label objects, times in seconds, Prometheus' increase().
local f = import '../lib/format.libsonnet';

{
  // 'job="plegscope", cluster="a"' -> {job: 'plegscope', cluster: 'a'}.
  // Tests need equality matchers: they become the labels of test series.
  selectorLabels(selector)::
    local matchers = [std.stripChars(m, ' ') for m in std.split(selector, ',') if std.stripChars(m, ' ') != ''];
    {
      [std.splitLimit(m, '=', 1)[0]]: std.stripChars(std.splitLimit(m, '=', 1)[1], '"')
      for m in matchers
    } + {
      assert std.length([m for m in matchers if std.length(std.findSubstr('=~', m)) > 0 || std.length(std.findSubstr('!', m)) > 0]) == 0
             : 'promtool tests need a selector of equality matchers, got ' + selector,
    },

  series(metric, labels):: '%s{%s}' % [metric, std.join(', ', ['%s="%s"' % [k, labels[k]] for k in std.objectFields(labels)])],

  t(seconds):: '%ds' % seconds,

  // Enough 10 s samples to cover `seconds`.
  samples(seconds):: std.ceil(seconds / 10) + 2,

  num:: f.num,

  silent(at, alert):: { eval_time: $.t(at), alertname: alert, exp_alerts: [] },
  firing(at, alert, alerts):: { eval_time: $.t(at), alertname: alert, exp_alerts: alerts },

  // increase(counter[range]) at `at` the way Prometheus 2.x extrapolates it,
  // for samples [[t, v], ...] (no resets).
  increase(samples, at, range)::
    local s = [p for p in samples if p[0] >= at - range && p[0] <= at];
    local first = s[0], last = s[std.length(s) - 1];
    local raw = last[1] - first[1];
    local sampled = last[0] - first[0];
    local avg = sampled / (std.length(s) - 1);
    local toStart0 = first[0] - (at - range);
    local toZero = if raw > 0 && first[1] >= 0 then sampled * (first[1] / raw) else toStart0;
    local toStart = std.min(toStart0, toZero);
    local toEnd = at - last[0];
    local ext(d) = if d < avg * 1.1 then d else avg / 2;
    raw * ((sampled + ext(toStart) + ext(toEnd)) / sampled),
}
