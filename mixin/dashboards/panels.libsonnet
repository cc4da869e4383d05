// Small Grafana helpers (what grafonnet would give): panels, targets,
// thresholds, a left-to-right layout on the 24-column grid, and the
// dashboard shell. Every panel queries the ${datasource} variable.
local DS = { type: 'prometheus', uid: '${datasource}' };

local thresholds(steps) = {
  mode: 'absolute',
  steps: [{ color: 'green', value: null }] + [{ color: s[1], value: s[0] } for s in steps],
};

{
  DS: DS,

  target(expr, legend='', ref='A', format=null, instant=false)::
    { datasource: DS, refId: ref, expr: expr, legendFormat: if legend == '' then '__auto' else legend,
      range: !instant, instant: instant }
    + (if format != null then { format: format } else {}),

  // [[expr, legend], ...] -> targets A, B, ...
  targets(pairs, instant=false)::
    [$.target(pairs[i][0], pairs[i][1], std.char(65 + i), instant=instant) for i in std.range(0, std.length(pairs) - 1)],

  timeseries(title, targets, unit='short', desc='', steps=[], lineThresholds=false, min=null)::
    { type: 'timeseries', title: title, description: desc, datasource: DS, targets: targets,
      fieldConfig: { defaults: { unit: unit, thresholds: thresholds(steps),
                                 custom: { drawStyle: 'line', lineWidth: 1, fillOpacity: 10, showPoints: 'never',
                                           spanNulls: false,
                                           thresholdsStyle: { mode: if lineThresholds then 'line+area' else 'off' } } }
                               + (if min != null then { min: min } else {}),
                     overrides: [] },
      options: { legend: { displayMode: 'table', placement: 'bottom', calcs: ['lastNotNull', 'max'] },
                 tooltip: { mode: 'multi', sort: 'desc' } } },

  stat(title, targets, unit='short', desc='', steps=[], mappings=[], textMode='auto', links=[])::
    { type: 'stat', title: title, description: desc, datasource: DS, targets: targets,
      fieldConfig: { defaults: { unit: unit, thresholds: thresholds(steps), mappings: mappings, links: links },
                     overrides: [] },
      options: { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
                 colorMode: 'background', graphMode: 'none', textMode: textMode,
                 justifyMode: 'auto', orientation: 'auto' } },

  bargauge(title, targets, unit='short', desc='', steps=[], max=null)::
    { type: 'bargauge', title: title, description: desc, datasource: DS, targets: targets,
      fieldConfig: { defaults: { unit: unit, thresholds: thresholds(steps), min: 0 }
                               + (if max != null then { max: max } else {}),
                     overrides: [] },
      options: { displayMode: 'gradient', orientation: 'horizontal',
                 reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
                 showUnfilled: true } },

  table(title, targets, desc='', unit='short', mappings=[])::
    { type: 'table', title: title, description: desc, datasource: DS, targets: targets,
      fieldConfig: { defaults: { unit: unit, mappings: mappings, thresholds: thresholds([]),
                                 custom: { cellOptions: { type: 'color-background' } } },
                     overrides: [] },
      options: { showHeader: true, cellHeight: 'sm' },
      transformations: [{ id: 'labelsToFields', options: { mode: 'columns' } }, { id: 'merge', options: {} }] },

  heatmap(title, expr, desc='')::
    { type: 'heatmap', title: title, description: desc, datasource: DS,
      targets: [$.target(expr, '{{le}}', format='heatmap')],
      fieldConfig: { defaults: { custom: { scaleDistribution: { type: 'linear' } } }, overrides: [] },
      options: { calculate: false, cellGap: 1,
                 color: { mode: 'scheme', scheme: 'Oranges', scale: 'exponential', exponent: 0.5, steps: 64 },
                 yAxis: { axisPlacement: 'left', unit: 's' }, rowsFrame: { layout: 'auto' },
                 tooltip: { show: true, yHistogram: true }, legend: { show: true } } },

  text(markdown):: { type: 'text', title: 'Diagnose', options: { mode: 'markdown', content: markdown } },

  row(title):: { type: 'row', title: title, collapsed: false, panels: [], w:: 24, h:: 1, newRow:: true },

  // A panel with its size: sized(panel, w, h).
  sized(panel, w, h):: panel { w:: w, h:: h },

  // Places sized panels left to right, wrapping at 24 columns; a row starts
  // a new line. Assigns ids in order.
  layout(panels)::
    local step(state, p) =
      local isRow = std.objectHasAll(p, 'newRow');
      local wrap = isRow || state.x + p.w > 24;
      local x = if wrap then 0 else state.x;
      local y = if wrap then state.y + state.rowH else state.y;
      local rowH = if wrap then 0 else state.rowH;
      local placed = p { id: std.length(state.out) + 1, gridPos: { x: x, y: y, w: p.w, h: p.h } };
      if isRow then { x: 0, y: y + 1, rowH: 0, out: state.out + [placed] }
      else { x: x + p.w, y: y, rowH: std.max(rowH, p.h), out: state.out + [placed] };
    std.foldl(step, panels, { x: 0, y: 0, rowH: 0, out: [] }).out,

  healthMappings: [{ type: 'value', options: {
    '1': { text: 'healthy', color: 'green', index: 0 },
    '0': { text: 'NOT HEALTHY', color: 'red', index: 1 },
  } }],

  // The cluster matcher every query of a dashboard carries with
  // showMultiCluster ('' without it): one cluster on the node dashboard,
  // any of the selected on the fleet's.
  clusterMatcher(config, multi)::
    if config.showMultiCluster then ', %s%s"$cluster"' % [config.clusterLabel, if multi then '=~' else '='] else '',

  variables(config, multi)::
    local scoped = config.plegscopeSelector + $.clusterMatcher(config, multi);
    [
      { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {},
        hide: 0, refresh: 1, regex: '', options: [] },
    ]
    + (if config.showMultiCluster then [
       { name: 'cluster', label: 'Cluster', type: 'query', datasource: DS,
         query: { query: 'label_values(pleg_healthy{%s}, %s)' % [config.plegscopeSelector, config.clusterLabel], refId: 'cluster' },
         definition: 'label_values(pleg_healthy{%s}, %s)' % [config.plegscopeSelector, config.clusterLabel],
         refresh: 2, sort: 1, hide: 0, current: {}, options: [], regex: '', multi: multi, includeAll: multi }
       + (if multi then { allValue: '.+' } else {}),
     ] else [])
    + [
      { name: 'node', label: 'Node', type: 'query', datasource: DS,
        query: { query: 'label_values(pleg_healthy{%s}, %s)' % [scoped, config.nodeLabel], refId: 'node' },
        definition: 'label_values(pleg_healthy{%s}, %s)' % [scoped, config.nodeLabel],
        refresh: 2, sort: 1, hide: 0, current: {}, options: [], regex: '', multi: multi, includeAll: multi }
      + (if multi then { allValue: '.+' } else {}),
    ],

  dashboard(config, uid, title, desc, panels, templating, links=[]):: {
    __inputs: [],
    __requires: [
      { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.4.0' },
      { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
    ],
    annotations: { list: [{ builtIn: 1, datasource: { type: 'grafana', uid: '-- Grafana --' }, enable: true,
                            hide: true, iconColor: 'rgba(0, 211, 255, 1)', name: 'Annotations & Alerts',
                            type: 'dashboard' }] },
    description: desc,
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: links,
    panels: $.layout(panels),
    refresh: config.dashboardRefresh,
    schemaVersion: 39,
    tags: config.dashboardTags,
    templating: { list: templating },
    time: { from: config.dashboardTimeFrom, to: 'now' },
    timepicker: {},
    timezone: '',
    title: title,
    uid: uid,
    version: 1,
    weekStart: '',
  },
}
