// status-plugin: a CNI plugin (spec 1.1.0) for plegscope's e2e tests of the
// runtime's network readiness. It answers ADD, DEL, CHECK, GC and VERSION as a
// plugin with nothing to set up does (chained after another plugin it passes
// that plugin's result on), and it answers STATUS the way a network plugin
// whose node daemon is gone does: unhealthy, with the CNI spec's code 50
// ("plugin not available") or 51 (also "existing containers may have limited
// connectivity"), while its control file exists. While its hold file exists,
// STATUS does not answer at all, as a plugin that waits on a node daemon that
// accepts connections but never replies does (at most holdMaxSeconds, 600 by
// default, so that no test leaves a plugin behind).
//
// Its network configuration names the control files:
//
//	{"type": "status-plugin", "unhealthyFile": "/path/to/file", "unhealthyCode": 50,
//	 "holdFile": "/path/to/other"}
//
// The unhealthy file's first line, when it has one, is the error's message (as
// a real plugin would say what it waits for); otherwise "plugin not available".
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/containernetworking/cni/pkg/skel"
	"github.com/containernetworking/cni/pkg/types"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
)

// The CNI spec's STATUS error codes (SPEC.md, "STATUS: Check plugin status").
const (
	codePluginNotAvailable    = 50
	codeLimitedConnectivity   = 51
	defaultUnavailableMessage = "plugin not available"
)

type netConf struct {
	types.PluginConf
	UnhealthyFile string `json:"unhealthyFile"`
	UnhealthyCode uint   `json:"unhealthyCode"`
	HoldFile      string `json:"holdFile"`
	HoldMax       uint   `json:"holdMaxSeconds"`
}

func parse(stdin []byte) (*netConf, error) {
	conf := &netConf{}
	if err := json.Unmarshal(stdin, conf); err != nil {
		return nil, fmt.Errorf("status-plugin: bad network configuration: %w", err)
	}
	if conf.HoldMax == 0 {
		conf.HoldMax = 600
	}
	if conf.UnhealthyCode == 0 {
		conf.UnhealthyCode = codePluginNotAvailable
	}
	if conf.UnhealthyCode != codePluginNotAvailable && conf.UnhealthyCode != codeLimitedConnectivity {
		return nil, fmt.Errorf("status-plugin: unhealthyCode %d: expected 50 or 51", conf.UnhealthyCode)
	}
	return conf, nil
}

// add passes a previous plugin's result on, or answers an empty result: the
// plugin sets nothing up itself.
func add(args *skel.CmdArgs) error {
	conf, err := parse(args.StdinData)
	if err != nil {
		return err
	}
	if err := version.ParsePrevResult(&conf.PluginConf); err != nil {
		return err
	}
	if conf.PrevResult != nil {
		return types.PrintResult(conf.PrevResult, conf.CNIVersion)
	}
	return types.PrintResult(&current.Result{CNIVersion: current.ImplementedSpecVersion}, conf.CNIVersion)
}

func nothing(args *skel.CmdArgs) error {
	_, err := parse(args.StdinData)
	return err
}

// hold waits while the hold file exists, up to the configured bound.
func hold(conf *netConf) {
	if conf.HoldFile == "" {
		return
	}
	deadline := time.Now().Add(time.Duration(conf.HoldMax) * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(conf.HoldFile); os.IsNotExist(err) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func status(args *skel.CmdArgs) error {
	conf, err := parse(args.StdinData)
	if err != nil {
		return err
	}
	hold(conf)
	if conf.UnhealthyFile == "" {
		return nil
	}
	text, err := os.ReadFile(conf.UnhealthyFile)
	if os.IsNotExist(err) {
		return nil
	}
	message := strings.TrimSpace(strings.SplitN(string(text), "\n", 2)[0])
	if message == "" {
		message = defaultUnavailableMessage
	}
	details := ""
	if conf.UnhealthyCode == codeLimitedConnectivity {
		details = "existing containers in the network may have limited connectivity"
	}
	return types.NewError(conf.UnhealthyCode, message, details)
}

func main() {
	skel.PluginMainFuncs(skel.CNIFuncs{Add: add, Del: nothing, Check: nothing, GC: nothing, Status: status},
		version.All, "plegscope e2e status-plugin")
}
