//go:build linux

package replicatest

import "syscall"

// childAttr makes the kernel SIGKILL a replica if the test process dies
// (a -timeout panic, a kill), so no server outlives the test.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
