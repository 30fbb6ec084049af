package blackbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// child is a helper process of these tests (mailpit, stripe-mock)
// listening on ports chosen free.
type child struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has exited
}

// errChildExited: the process stopped before it answered.
var errChildExited = errors.New("exited before it answered")

// startChild starts bin with args(addrs), addrs being n addresses free
// when chosen, and waits up to 30 s until ready(addrs). A port free when
// chosen may be taken by another package's process before the child binds
// it, and the child then exits at once: it is started again on other
// ports, up to five times.
func startChild(name, bin string, n int, args func(addrs []string) []string, ready func(addrs []string) bool) (*child, []string, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, nil, fmt.Errorf("%s not found at %s (run make tools): %w", name, bin, err)
	}
	var err error
	for range 5 {
		var c *child
		var addrs []string
		if c, addrs, err = startChildOnce(name, bin, n, args, ready); !errors.Is(err, errChildExited) {
			return c, addrs, err
		}
	}
	return nil, nil, err
}

func startChildOnce(name, bin string, n int, args func([]string) []string, ready func([]string) bool) (*child, []string, error) {
	addrs := make([]string, n)
	for i := range addrs {
		a, err := freeAddr()
		if err != nil {
			return nil, nil, err
		}
		addrs[i] = a
	}
	cmd := exec.Command(bin, args(addrs)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for !ready(addrs) {
		select {
		case <-c.exited:
			return nil, nil, fmt.Errorf("%s on %v: %w", name, addrs, errChildExited)
		default:
		}
		if time.Now().After(deadline) {
			c.stop()
			return nil, nil, fmt.Errorf("%s did not answer on %v within 30 s", name, addrs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c, addrs, nil
}

// stop kills the process and waits for it; nil does nothing.
func (c *child) stop() {
	if c == nil {
		return
	}
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// TestStartChildStartsAgain: a child that exits before it answers (its
// port taken) is started again, on other ports; one that keeps exiting is
// given up after five tries.
func TestStartChildStartsAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	script := filepath.Join(dir, "child.sh")
	// the first run exits at once; later ones stay up
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho run >> "+runs+"\n[ \"$(wc -l < "+runs+")\" -ge 2 ] && exec sleep 60\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	started := func([]string) bool {
		b, _ := os.ReadFile(runs)
		return strings.Count(string(b), "run") >= 2
	}
	c, _, err := startChild("flaky child", script, 1, func([]string) []string { return nil }, started)
	if err != nil {
		t.Fatalf("a child that exits once: %v", err)
	}
	c.stop()

	never := filepath.Join(dir, "never.sh")
	if err := os.WriteFile(never, []byte("#!/bin/sh\necho run >> "+filepath.Join(dir, "never-runs")+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := startChild("dead child", never, 1, func([]string) []string { return nil }, func([]string) bool { return false }); !errors.Is(err, errChildExited) {
		t.Fatalf("a child that always exits: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "never-runs")); strings.Count(string(b), "run") != 5 {
		t.Errorf("a child that always exits ran %d times, want 5", strings.Count(string(b), "run"))
	}
}
