//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Machines in their own network namespaces (issue 34), inside the suite's
// `unshare -rn` one (the hub: the NATS server, the inbox, Chromium).
//
// Each machine's namespace is made by a holder process (sleep, started
// with CLONE_NEWNET: we are root in the suite's user namespace) and joined
// over a veth pair whose hub end is a port of the bridge ic-hub. The
// addresses are IPv4 link-local (169.254.34.0/24): they exist only inside
// these namespaces, nothing routes them anywhere. Every service of a
// machine (its fake model, its MCP servers, its relay's connection) lives
// on that machine's own loopback; the NATS server listens on the bridge's
// address alone, so a relay reaches it only over its link.
//
// A process joins a namespace by being forked from an OS thread that
// setns(2)'d into it (netns.do); a socket is created in the namespace of
// the thread that makes it, so the test's own listeners can live there
// too.

const hubAddr = "169.254.34.1"

// netns is one machine's network namespace.
type netns struct {
	name string
	addr string   // its address on the link to the hub
	f    *os.File // /proc/<holder>/ns/net, kept open
	id   string   // the namespace as /proc/PID/ns/net names it: net:[inode]
}

// hubNet makes the bridge of the hub, with hubAddr on it, for the test.
func hubNet(t *testing.T) {
	t.Helper()
	if _, err := net.InterfaceByName("ic-hub"); err == nil {
		return
	}
	ipRun(t, nil, "link", "add", "ic-hub", "type", "bridge")
	ipRun(t, nil, "addr", "add", hubAddr+"/24", "dev", "ic-hub")
	ipRun(t, nil, "link", "set", "ic-hub", "up")
	t.Cleanup(func() { exec.Command("ip", "link", "del", "ic-hub").Run() })
}

// newNetns makes machine name's namespace, linked to the hub as host n
// (2..254) of 169.254.34.0/24. Cleanup removes it, its link with it.
func newNetns(t *testing.T, name string, n int) *netns {
	t.Helper()
	hubNet(t)
	holder := exec.Command("sleep", "infinity")
	holder.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if err := holder.Start(); err != nil {
		t.Fatalf("a network namespace for machine %s: %v", name, err)
	}
	pid := fmt.Sprint(holder.Process.Pid)
	f, err := os.Open("/proc/" + pid + "/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	id, err := os.Readlink("/proc/" + pid + "/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	ns := &netns{name: name, addr: fmt.Sprintf("169.254.34.%d", n), f: f, id: id}
	t.Cleanup(func() {
		holder.Process.Kill()
		holder.Wait()
		f.Close() // the last reference: the namespace and its veth go
	})
	hubEnd := "ic-" + name
	ipRun(t, nil, "link", "add", hubEnd, "type", "veth", "peer", "name", "eth0", "netns", pid)
	ipRun(t, nil, "link", "set", hubEnd, "master", "ic-hub")
	ipRun(t, nil, "link", "set", hubEnd, "up")
	ipRun(t, ns, "link", "set", "lo", "up")
	ipRun(t, ns, "addr", "add", ns.addr+"/24", "dev", "eth0")
	ipRun(t, ns, "link", "set", "eth0", "up")
	return ns
}

// ipRun runs ip(8) in ns (nil: the hub).
func ipRun(t *testing.T, ns *netns, args ...string) {
	t.Helper()
	var out []byte
	run := func() (err error) {
		out, err = exec.Command("ip", args...).CombinedOutput()
		return err
	}
	var err error
	if ns == nil {
		err = run()
	} else {
		err = ns.do(run)
	}
	if err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// do runs fn on an OS thread inside ns: the processes fn starts and the
// sockets it makes are ns's. The thread is given back only if it could
// leave ns; otherwise it ends with fn's goroutine.
func (ns *netns) do(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer home.Close()
		if err := unix.Setns(int(ns.f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("entering machine %s's network namespace: %w", ns.name, err)
			return
		}
		err = fn()
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// listen is a TCP listener on ns's loopback.
func (ns *netns) listen() (net.Listener, error) {
	var ln net.Listener
	err := ns.do(func() (err error) {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		return err
	})
	return ln, err
}

// start starts cmd inside ns, and checks it is there.
func (ns *netns) start(cmd *exec.Cmd) error {
	if err := ns.do(cmd.Start); err != nil {
		return err
	}
	if id, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", cmd.Process.Pid)); err != nil || id != ns.id {
		return fmt.Errorf("%s started in network namespace %s (%v), not machine %s's %s", cmd.Path, id, err, ns.name, ns.id)
	}
	return nil
}

// dial reports whether a TCP connection to addr opens from ns (nil: the
// hub).
func dialFrom(ns *netns, addr string) error {
	dial := func() error {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}
	if ns == nil {
		return dial()
	}
	return ns.do(dial)
}

// mustNotReach fails t if addr opens from ns: what the namespaces keep
// apart.
func mustNotReach(t *testing.T, ns *netns, addr, what string) {
	t.Helper()
	from := "the hub"
	if ns != nil {
		from = "machine " + ns.name
	}
	err := dialFrom(ns, addr)
	if err == nil {
		t.Errorf("%s reaches %s at %s: the namespaces are not apart", from, what, addr)
		return
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("%s dialing %s at %s: %v (want refused or unreachable)", from, what, addr, err)
		return
	}
	t.Logf("%s cannot reach %s at %s: %v", from, what, addr, err)
}
