#pragma once
// THE source list: every evidence source beside the PLEG, once. Each row is
// X(Type, name), where Type is a SourceOf<Evidence> built as
// Type(const Type::Options&, const SourceContext&) and `name` is, at once:
//   - NodeOptions::name, its options (Type::Options), bound to its flags by
//     the add_flags(CLI::App&, Type::Options&) declared beside them in its
//     folder (none for NoOptions);
//   - Sources::name, the source itself, which Node starts, stops and
//     collects /metrics from in this order;
//   - SourceEvidence::name, its latest evidence, which place_sources()
//     (snapshot_joins.h) puts into the diagnoser's Snapshot.
// Row order is the order of start, of /metrics and of --help.
//
// Adding a source: its folder under collectors/, one row here with its
// header below, and one line in place_sources() for its Snapshot field. A
// source that needs another's evidence declares an Asks struct and
// ask_with(), answered by a pure join in source_joins.h.
#include "cri/runtime_info_source.h"
#include "cri/runtime_status_probe.h"
#include "crio/crio_source.h"
#include "host/host_source.h"
#include "host/pressure_source.h"
#include "journal/journal_source.h"
#include "kubelet/kubelet_reader.h"
#include "runtime_metrics/runtime_metrics_reader.h"

#define PLEGSCOPE_SOURCES(X)                      \
  X(RuntimeInfoSource, runtime_info)              \
  X(PressureSource, pressure)                     \
  X(HostSource, host)                             \
  X(JournalSource, journal)                       \
  X(KubeletReader, kubelet)                       \
  X(RuntimeMetricsReader, runtime_metrics)        \
  X(RuntimeStatusProbe, runtime_status)           \
  X(CrioPagesSource, crio_pages)
