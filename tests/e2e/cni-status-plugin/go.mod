module plegscope.test/cni-status-plugin

go 1.24

require github.com/containernetworking/cni v1.3.0

require (
	github.com/vishvananda/netns v0.0.4 // indirect
	golang.org/x/sys v0.23.0 // indirect
)
