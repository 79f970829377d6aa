//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package protocol

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the program in a process group of its own, so
// that a Ctrl-C in the terminal reaches only the client that drives it
// (which then ends the engine itself) rather than killing the engine
// mid-game, and so that killProcess reaches any children it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcess kills the program's process group.
func killProcess(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
