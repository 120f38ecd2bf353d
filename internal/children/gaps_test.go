package children

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/tidwall/gjson"
)

// Two chats started at once on one child: one runs, the other is told the
// first is still running (the check is under the child's lock).
func TestConcurrentStartChat(t *testing.T) {
	s, _ := testStore(t)
	pathDir, _ := fakeClaude(t, "claude-code-chat2.jsonl")
	newChild(t, s, "busy", pathDir, map[string]string{"FAKE_SLEEP": "60"})
	const n = 4
	var wg sync.WaitGroup
	start := make(chan struct{})
	chats := make([]*Chat, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			chats[i], errs[i] = s.StartChat("busy", "hello")
		}()
	}
	close(start)
	wg.Wait()
	started := 0
	for i := range n {
		if errs[i] == nil {
			started++
			defer s.Cancel(chats[i].ID)
		} else if !strings.Contains(errs[i].Error(), "still running") {
			t.Errorf("StartChat %d: %v", i, errs[i])
		}
	}
	c, err := s.Get("busy")
	if err != nil {
		t.Fatal(err)
	}
	if started != 1 || c.Chats != 1 {
		t.Errorf("%d of %d concurrent chats started (child has %d chats), want exactly 1", started, n, c.Chats)
	}
}

// strangerGroup starts a process leading a group of its own, not of any
// chat: what a dead runner's recorded group id may have become.
func strangerGroup(t *testing.T) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	return cmd, exited
}

// deadRunnerChat makes chat 1 of a new child whose runner is gone and
// whose record names group pgid.
func deadRunnerChat(t *testing.T, s *Store, name string, ri RunnerInfo) *Chat {
	t.Helper()
	c := newChild(t, s, name, t.TempDir(), nil)
	c, err := s.update(c.ID, func(c *Child) error { c.Chats = 1; return nil })
	if err != nil {
		t.Fatal(err)
	}
	chat := &Chat{s: s, Child: c, N: 1, ID: ChatID(c.ID, 1)}
	if err := os.Mkdir(chat.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(chat.path(promptFile), "chat prompt", []byte(`{"prompt":"x","created":"2020-01-01T00:00:00Z"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	if err := chat.writeRunner(ri); err != nil {
		t.Fatal(err)
	}
	return chat
}

// A dead runner's recorded group id now led by a stranger (another start
// time; or, for a record without one, no chat in its environment) is left
// alone when the chat is marked failed. (TestRunnerDeathMarksChatFailed:
// the chat's own leftovers are ended.)
func TestDeadRunnerSparesAReusedGroup(t *testing.T) {
	if _, ok := procStart(os.Getpid()); !ok {
		t.Skip("no /proc: dead runners' groups are never ended here")
	}
	s, _ := testStore(t)
	for _, tc := range []struct {
		name  string
		start func(real uint64) uint64
	}{
		{"other-start", func(real uint64) uint64 { return real + 1 }},
		{"no-start-recorded", func(uint64) uint64 { return 0 }},
	} {
		cmd, exited := strangerGroup(t)
		real, ok := procStart(cmd.Process.Pid)
		if !ok {
			t.Fatal("cannot read the stranger's start time")
		}
		chat := deadRunnerChat(t, s, tc.name, RunnerInfo{RunnerPID: cmd.Process.Pid, ClientPGID: cmd.Process.Pid, ClientStart: tc.start(real), Started: time.Now()})
		st, err := chat.State()
		if err != nil || st != Failed {
			t.Fatalf("%s: state %s, %v; want failed (runner gone)", tc.name, st, err)
		}
		select {
		case <-exited:
			t.Errorf("%s: a stranger's process group that reused the recorded id was killed", tc.name)
		case <-time.After(300 * time.Millisecond):
		}
	}
	// The recorded group itself, leader alive with the start recorded, is ended.
	cmd, exited := strangerGroup(t)
	real, _ := procStart(cmd.Process.Pid)
	chat := deadRunnerChat(t, s, "own", RunnerInfo{ClientPGID: cmd.Process.Pid, ClientStart: real, Started: time.Now()})
	chat.State()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Errorf("the recorded group (same leader, same start) lives on after its runner died")
	}
}

// Env names go into child.json as literal keys, whatever they hold.
func TestEnvKeysRoundTrip(t *testing.T) {
	env := map[string]string{}
	for i, k := range []string{":x", "a.b", "a*b", `a\b`, "#", "@x", "0", "a|b", "x?y", "!a", "a:b", "é", `"q"`, "k "} {
		env[k] = string(rune('A' + i))
	}
	dir := filepath.Join(t.TempDir(), "0123456789abcdef")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, childFile)
	if err := writeRecord(path, "child record", Child{ID: "0123456789abcdef", Name: "x", Env: env}.record()); err != nil {
		t.Fatal(err)
	}
	got, err := readChild(path)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		if got.Env[k] != v {
			t.Errorf("env %q: read back %q, want %q (all: %v)", k, got.Env[k], v, got.Env)
		}
	}
	if len(got.Env) != len(env) {
		t.Errorf("read back %d env entries, want %d: %v", len(got.Env), len(env), got.Env)
	}
}

// hookHome is a HOME (and CODEX_HOME, XDG_CONFIG_HOME) of the child's own,
// so the test never reads the real user's configs.
func hookHome(t *testing.T) map[string]string {
	home := t.TempDir()
	return map[string]string{"HOME": home, "CODEX_HOME": filepath.Join(home, ".codex"), "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
}

func installApprove(t *testing.T, env map[string]string, client string, scope install.Scope, project string, trust bool) {
	t.Helper()
	ie, err := install.EnvFromLookup(func(k string) string { return env[k] }, project)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(env["HOME"], "bin", "interceptor") // install knows its hooks by the binary's name
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := install.Install(ie, install.Options{Client: client, Scope: scope, Server: "wf", Bin: bin,
		Approve: install.ApproveOptions{On: true}, Trust: trust && client == "codex"}); err != nil {
		t.Fatal(err)
	}
}

// A hook client child needs its approve hook installed (and, for Codex,
// trusted), or approvals: false; options it cannot honour are refused.
func TestHookClientsNeedTheirApproveRoute(t *testing.T) {
	s, _ := testStore(t)
	create := func(c Child) error {
		_, err := s.Create(c)
		return err
	}
	for _, client := range []string{"codex", "gemini", "opencode"} {
		env, wd := hookHome(t), t.TempDir()
		err := create(Child{Name: client + "-bare", Client: client, WorkingDir: wd, Env: env})
		if err == nil || !strings.Contains(err.Error(), "no approve hook is installed") || !strings.Contains(err.Error(), "interceptor install "+client) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s without an approve hook: %v", client, err)
		}
		c, err := s.Create(Child{Name: client + "-free", Client: client, WorkingDir: wd, Env: env, Unsupervised: true})
		if err != nil {
			t.Errorf("%s with approvals: false: %v", client, err)
		} else if got, _ := s.Get(c.ID); !got.Unsupervised || gjson.GetBytes(readFile(t, filepath.Join(s.childDir(c.ID), childFile)), "approvals").Type != gjson.False {
			t.Errorf("%s: approvals: false is not stored: %s", client, readFile(t, filepath.Join(s.childDir(c.ID), childFile)))
		} else if chooses := client == "gemini"; (got.Session != "") != chooses {
			t.Errorf("%s: session %q at create (a session id is chosen at create only for clients that take one)", client, got.Session)
		}
		for opt, c := range map[string]Child{
			OptApprove:    {Approve: "x"},
			OptMCPConfig:  {MCPConfig: `{"mcpServers":{}}`},
			OptHumanTools: {HumanTools: "testdata/human-tools.json"},
		} {
			c.Name, c.Client, c.WorkingDir, c.Env, c.Unsupervised = client+"-opt", client, wd, env, true
			if err := create(c); err == nil || !strings.HasPrefix(err.Error(), opt+": a "+client+" child cannot take it") {
				t.Errorf("%s with %s: %v", client, opt, err)
			}
		}

		// Installed at project scope in its working dir (Codex: not yet trusted).
		installApprove(t, env, client, install.Project, wd, false)
		err = create(Child{Name: client + "-project", Client: client, WorkingDir: wd, Env: env})
		if client == "codex" {
			if err == nil || !strings.Contains(err.Error(), "untrusted") {
				t.Errorf("codex with an untrusted approve hook: %v", err)
			}
			installApprove(t, env, client, install.Project, wd, true)
			err = create(Child{Name: client + "-project", Client: client, WorkingDir: wd, Env: env})
		}
		if err != nil {
			t.Errorf("%s with a project approve hook: %v", client, err)
		}
		// At user scope, for any working dir.
		installApprove(t, env, client, install.User, wd, true)
		if err := create(Child{Name: client + "-user", Client: client, WorkingDir: t.TempDir(), Env: env}); err != nil {
			t.Errorf("%s with a user approve hook: %v", client, err)
		}
	}
	if err := create(Child{Name: "cc", Client: "claude-code", WorkingDir: t.TempDir(), Unsupervised: true}); err == nil || !strings.HasPrefix(err.Error(), "approvals: false") {
		t.Errorf("claude-code with approvals: false: %v", err)
	}
}

// A chat re-checks: a hook taken out since create stops the next chat.
func TestStartChatRechecksTheApproveRoute(t *testing.T) {
	s, _ := testStore(t)
	env, wd := hookHome(t), t.TempDir()
	installApprove(t, env, "gemini", install.User, wd, false)
	if _, err := s.Create(Child{Name: "g", Client: "gemini", WorkingDir: wd, Env: env}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(env["HOME"], ".gemini", "settings.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartChat("g", "hello"); err == nil || !strings.Contains(err.Error(), "no approve hook") {
		t.Errorf("a chat without the approve hook: %v", err)
	}
	if c, _ := s.Get("g"); c.Chats != 0 {
		t.Errorf("the refused chat was recorded (%d chats)", c.Chats)
	}
}

// A chat that ends denies its approvals still pending (a Codex hook runs
// in a process group of its own and would wait out its timeout), keeps its
// human tool questions, and cancel ends the processes carrying the chat
// outside the client's group.
func TestCancelSettlesTheChat(t *testing.T) {
	if _, ok := procStart(os.Getpid()); !ok {
		t.Skip("no /proc")
	}
	s, q := testStore(t)
	dir := t.TempDir()
	fixture, _ := filepath.Abs("testdata/claude-code-chat2.jsonl")
	// Like a Codex hook: a process in a session (and group) of its own,
	// with the client's environment. It writes its pid once it has left
	// the client's group: $! of the shell could name it before setsid,
	// when the group's kill still reaches it.
	script := fmt.Sprintf("#!/bin/sh\nsetsid sh -c 'echo $$ > %s; exec sleep 60' >/dev/null 2>&1 &\ncat %q\nsleep 60 & wait\n", filepath.Join(dir, "outside.pid"), fixture)
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	newChild(t, s, "w", dir, nil)
	chat, err := s.StartChat("w", "hello")
	if err != nil {
		t.Fatal(err)
	}
	waitClient(t, chat)
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(dir, "outside.pid"))
		fmt.Sscan(string(b), &pid)
	}
	if pid == 0 || !slices.Contains(chatProcs(chat.ID), pid) {
		t.Fatalf("the fake client's outside process (%d) is not running with the chat in its environment", pid)
	}
	if sid, _ := procStat(pid); sid != pid {
		t.Fatalf("the fake client's outside process (%d) is in session %d, not its own", pid, sid)
	}
	ask, err := q.Enqueue(approvals.Request{Client: "codex", Tool: "mcp__wf__next_step", Input: `{}`, Deadline: time.Now().Add(time.Hour), Chat: chat.ID})
	if err != nil {
		t.Fatal(err)
	}
	park := humantools.Tool{Name: "request_access", Description: "d", Mode: approvals.ModePark}
	question, err := (&humantools.Asker{Queue: q, Chat: chat.ID}).Call(context.Background(), park, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Cancel(chat.ID); err != nil || st != Failed {
		t.Fatalf("cancel: %s %v", st, err)
	}
	if got, _ := q.Get(ask.ID); got.Status != approvals.Denied || !strings.Contains(got.Reason, "cancelled") {
		t.Errorf("the chat's pending approval after cancel: %s %q", got.Status, got.Reason)
	}
	if got, _ := q.Get(question.ID); got.Status != approvals.Pending {
		t.Errorf("the chat's parked question after cancel: %s, want still pending (its answer goes to the next chat)", got.Status)
	}
	if procs := chatProcs(chat.ID); len(procs) > 0 {
		t.Errorf("processes carrying the chat are left after cancel: %v", procs)
	}
	if _, alive := procStat(pid); alive {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		t.Errorf("the process outside the client's group (%d) lives on: %s", pid, st)
	}
}

// procStat reads /proc/<pid>/stat: the process's session, and whether it
// still lives. A process killed and past the start of its exit does not:
// it runs nothing of its own again, though it shows as running (state R,
// flag PF_EXITING) until it is a zombie. Cancel stops waiting once the
// killed process has dropped its memory (its environment no longer names
// the chat), which is already inside that exit.
func procStat(pid int) (sid int, alive bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(string(b), ')')
	if err != nil || i < 0 {
		return 0, false
	}
	// After the command name: state ppid pgrp session tty_nr tpgid flags.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 7 {
		return 0, false
	}
	sid, _ = strconv.Atoi(f[3])
	flags, _ := strconv.ParseUint(f[6], 10, 32)
	const pfExiting = 0x4
	return sid, f[0] != "Z" && f[0] != "X" && flags&pfExiting == 0
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
