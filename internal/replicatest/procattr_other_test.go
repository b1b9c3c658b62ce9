//go:build !linux

package replicatest

import "syscall"

// childAttr: without Pdeathsig, the cluster's t.Cleanup is what ends the
// replicas.
func childAttr() *syscall.SysProcAttr { return nil }
