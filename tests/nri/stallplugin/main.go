// nri-stallplugin: a real NRI plugin, built from github.com/containerd/nri by
// scripts/build-nri-plugin, that the tests connect to a private containerd.
// It answers every event it subscribes to at once, except while its control
// file names the event (or "all"): then it stalls, ignoring the runtime's
// deadline as a deadlocked plugin does, until the file stops naming it.
//
// The test learns what the plugin does from its state file, one line per
// happening ("registered", "stall CreateContainer", "resume CreateContainer",
// "closed"), so it waits on conditions, never on time.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

type plugin struct {
	control string
	state   string
	events  api.EventMask
	mu      sync.Mutex
}

func (p *plugin) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf(format, args...)
	fmt.Fprintln(os.Stderr, "nri-stallplugin:", line)
	f, err := os.OpenFile(p.state, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nri-stallplugin: state file:", err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// stalling reports whether the control file names the event.
func (p *plugin) stalling(event string) bool {
	b, err := os.ReadFile(p.control)
	if err != nil {
		return false
	}
	for _, w := range strings.Fields(string(b)) {
		if w == "all" || w == event {
			return true
		}
	}
	return false
}

// gate blocks while the control file names the event. The runtime's context
// is deliberately not watched: the plugin under test is one that has stopped
// answering, and the runtime's own timeout is what is measured.
func (p *plugin) gate(event string) {
	if !p.stalling(event) {
		return
	}
	p.note("stall %s", event)
	for p.stalling(event) {
		time.Sleep(50 * time.Millisecond)
	}
	p.note("resume %s", event)
}

func (p *plugin) Configure(_ context.Context, _, runtime, version string) (api.EventMask, error) {
	p.note("configured by %s %s", runtime, version)
	return p.events, nil
}

func (p *plugin) Synchronize(_ context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	p.gate("Synchronize")
	p.note("synchronized %d pods %d containers", len(pods), len(ctrs))
	return nil, nil
}

func (p *plugin) RunPodSandbox(_ context.Context, _ *api.PodSandbox) error {
	p.gate("RunPodSandbox")
	return nil
}

func (p *plugin) StopPodSandbox(_ context.Context, _ *api.PodSandbox) error {
	p.gate("StopPodSandbox")
	return nil
}

func (p *plugin) RemovePodSandbox(_ context.Context, _ *api.PodSandbox) error {
	p.gate("RemovePodSandbox")
	return nil
}

func (p *plugin) CreateContainer(_ context.Context, _ *api.PodSandbox, _ *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	p.gate("CreateContainer")
	return nil, nil, nil
}

func (p *plugin) StartContainer(_ context.Context, _ *api.PodSandbox, _ *api.Container) error {
	p.gate("StartContainer")
	return nil
}

func (p *plugin) UpdateContainer(_ context.Context, _ *api.PodSandbox, _ *api.Container, _ *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	p.gate("UpdateContainer")
	return nil, nil
}

func (p *plugin) StopContainer(_ context.Context, _ *api.PodSandbox, _ *api.Container) ([]*api.ContainerUpdate, error) {
	p.gate("StopContainer")
	return nil, nil
}

func (p *plugin) RemoveContainer(_ context.Context, _ *api.PodSandbox, _ *api.Container) error {
	p.gate("RemoveContainer")
	return nil
}

func main() {
	socket := flag.String("socket", api.DefaultSocketPath, "the runtime's NRI socket")
	name := flag.String("name", "stall", "plugin name, as NRI registers it")
	idx := flag.String("idx", "10", "plugin index (two digits), as NRI registers it")
	control := flag.String("control", "", "control file: the events it names (or \"all\") stall")
	state := flag.String("state", "", "state file the plugin appends what it does to")
	events := flag.String("events", "RunPodSandbox,StopPodSandbox,RemovePodSandbox,CreateContainer,StartContainer,UpdateContainer,StopContainer,RemoveContainer",
		"events to subscribe to")
	reconnect := flag.Bool("reconnect", false, "connect again when the runtime closes the connection (as a plugin run by a DaemonSet is restarted)")
	flag.Parse()
	if *control == "" || *state == "" {
		fmt.Fprintln(os.Stderr, "nri-stallplugin: -control and -state are required")
		os.Exit(2)
	}
	mask, err := api.ParseEventMask(strings.Split(*events, ",")...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nri-stallplugin: -events %q: %v\n", *events, err)
		os.Exit(2)
	}
	p := &plugin{control: *control, state: *state, events: mask}
	for {
		s, err := stub.New(p, stub.WithPluginName(*name), stub.WithPluginIdx(*idx), stub.WithSocketPath(*socket))
		if err != nil {
			fmt.Fprintln(os.Stderr, "nri-stallplugin:", err)
			os.Exit(1)
		}
		if err := s.Start(context.Background()); err != nil {
			p.note("start failed: %v", err)
		} else {
			p.note("registered %s-%s", *idx, *name)
			s.Wait()
			p.note("closed")
		}
		if !*reconnect {
			os.Exit(1)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
