// The labels that name one node across clusters: the cluster label, any
// additional aggregation labels, then the node label. Every `by`/`on` of a
// rule keeps them all, and alert templates query back with all of them, so
// same-named nodes of different clusters never merge under a global ruler.
{
  nodeLabels(c):: [c.clusterLabel] + c.additionalAggregationLabels + [c.nodeLabel],
  by(c):: std.join(', ', self.nodeLabels(c)),
  // For `printf "...{%s}..." %s | query` in alert templates: the matchers
  // (with printf's %q) and their $labels arguments, in the same order.
  templateMatchers(c):: std.join(', ', ['%s=%%q' % l for l in self.nodeLabels(c)]),
  templateArgs(c):: std.join(' ', ['$labels.' + l for l in self.nodeLabels(c)]),
  // The nodes whose agent is blind for a reason of its own (it may not open
  // the socket, there is none where it looks, or no CRI runtime answers
  // there): what it cannot see is no evidence about the node, so every
  // critical alert ends in `unless on (<by>) <this>`, and
  // PlegscopeCannotReachRuntime alone says why.
  agentBlind(c):: 'max by (%s) (pleg_runtime_unreachable{%s, reason=~"%s"}) == 1'
                  % [self.by(c), c.plegscopeSelector, std.join('|', c.agentSideUnreachableReasons)],
}
