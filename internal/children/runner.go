package children

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
)

// ChatEnv names the environment variable every child client gets: its chat
// id. The approve hook reads it as --chat (--chat is one of the flags an
// environment variable may set: cmd/interceptor's envFlags), so a hook
// installed once in the client's config tags each request with the chat
// that made it.
const ChatEnv = "INTERCEPTOR_CHAT"

// maxLine bounds one line of a client's output.
const maxLine = 32 << 20

// killGrace is how long a cancelled client gets between SIGTERM and SIGKILL.
const killGrace = 3 * time.Second

// StartChat starts a new chat of a child with prompt: it records the chat,
// then starts a detached runner (`<bin> children runner --chat ID`) that
// owns it, and returns once the runner holds the chat. The previous chat
// must be finished.
func (s *Store) StartChat(idOrName, prompt string) (*Chat, error) {
	if strings.TrimSpace(prompt) == "" {
		return nil, errors.New("prompt is empty")
	}
	bin, err := s.bin()
	if err != nil {
		return nil, fmt.Errorf("finding the interceptor binary for the runner: %w", err)
	}
	child, err := s.Get(idOrName)
	if err != nil {
		return nil, err
	}
	// The hook may have gone since create.
	if err := CheckApproveRoute(child); err != nil {
		return nil, err
	}
	var chat *Chat
	child, err = s.update(child.ID, func(c *Child) error {
		// Under the child's lock: of two chats started at once, the
		// second sees the first.
		if c.Chats > 0 {
			prev := &Chat{s: s, Child: *c, N: c.Chats, ID: ChatID(c.ID, c.Chats)}
			st, err := prev.State()
			if err != nil {
				return err
			}
			if st == Running {
				return fmt.Errorf("child %s: chat %s is still running; poll it until it completes, or cancel it", c.Name, prev.ID)
			}
		}
		c.Chats++
		chat = &Chat{s: s, Child: *c, N: c.Chats, ID: ChatID(c.ID, c.Chats)}
		if err := os.Mkdir(chat.Dir(), 0o700); err != nil {
			return err
		}
		return writeRecord(chat.path(promptFile), "chat prompt", promptRecord{Prompt: prompt, Created: time.Now().UTC().Format(timeFmt)})
	})
	if err != nil {
		return nil, err
	}
	chat.Child = child
	logf, err := os.OpenFile(chat.path(runnerLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "children", "runner", "--state-dir", s.StateDir, "--chat", chat.ID)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = child.WorkingDir
	detach(cmd)
	if err := cmd.Start(); err != nil {
		chat.finish(Failed, "starting the runner: "+err.Error(), "")
		return nil, fmt.Errorf("starting the runner: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // reap it if it ends while we live
	deadline := time.After(10 * time.Second)
	for {
		if _, err := chat.Runner(); err == nil {
			return chat, nil
		}
		select {
		case <-exited:
			if _, err := chat.Runner(); err == nil {
				return chat, nil
			}
			chat.State() // marks it failed
			return nil, fmt.Errorf("the runner of chat %s exited at once; see %s", chat.ID, chat.path(runnerLog))
		case <-deadline:
			return nil, fmt.Errorf("the runner of chat %s did not start within 10s; see %s", chat.ID, chat.path(runnerLog))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Run is the runner: it runs the chat's client to its end and records every
// event. It holds the chat's runner lock while it lives (readers tell a
// dead runner by the lock), and on ctx's end (SIGTERM: cancel) ends the
// client's process group.
func (s *Store) Run(ctx context.Context, chatID string, approveTimeout time.Duration) error {
	chat, err := s.Chat(chatID)
	if err != nil {
		return err
	}
	unlock, ok, err := privfs.TryLock(chat.path(runnerLock), "chat "+chatID+" runner")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("chat %s: another runner owns it", chatID)
	}
	defer unlock()
	info := RunnerInfo{RunnerPID: os.Getpid(), Started: time.Now()}
	if err := chat.writeRunner(info); err != nil {
		return err
	}
	if last, err := chat.lastEvent(); err == nil {
		if _, done := terminal(last); done {
			return fmt.Errorf("chat %s is finished already", chatID)
		}
	}
	st, result, errText := s.runClient(ctx, chat, &info, approveTimeout)
	if _, err := chat.finish(st, errText, result); err != nil {
		// The log cannot take the end either (a full disk, a size
		// limit): the runner's record says why, for whoever ends the
		// chat once the runner is gone (State).
		info.Failure = "the runner could not record the chat's end: " + err.Error()
		if errText != "" {
			info.Failure = errText + "; " + info.Failure
		}
		chat.writeRunner(info)
		return err
	}
	return nil
}

// logError is an append to the chat's event log that failed.
type logError struct{ err error }

func (e *logError) Error() string { return e.err.Error() }
func (e *logError) Unwrap() error { return e.err }

// runClient starts the client and records its events; it returns the
// chat's final status, its result and why it failed.
func (s *Store) runClient(ctx context.Context, chat *Chat, info *RunnerInfo, approveTimeout time.Duration) (Status, string, string) {
	client, err := LookupClient(chat.Child.Client)
	if err != nil {
		return Failed, "", err.Error()
	}
	p, err := chat.Prompt()
	if err != nil {
		return Failed, "", "reading the prompt: " + err.Error()
	}
	run := &chatRun{s: s, chat: chat, client: client, prompt: p.Text, sessionSaved: chat.Child.Session != ""}
	// The client also ends when its events cannot be recorded: nobody
	// could follow or decide what it does.
	cctx, endClient := context.WithCancel(ctx)
	defer endClient()
	run.endClient = endClient
	cmd, stdout, err := run.start(cctx, approveTimeout)
	if err != nil {
		return Failed, "", err.Error()
	}
	info.ClientPGID = cmd.Process.Pid
	info.ClientStart, _ = procStart(cmd.Process.Pid)
	chat.writeRunner(*info)

	norm := client.NewNormalizer()
	readErr := readLines(stdout, func(line []byte) error { return run.record(norm, line) })
	waitErr := cmd.Wait()
	info.killGroup(chat.ID) // leftovers: MCP servers, hooks
	if !run.started {
		if evs, err := encodeEvents(startFirst(nil, chat, client.Name(), p.Text)); err == nil {
			chat.Append(evs...)
		}
	}
	return run.outcome(ctx, readErr, waitErr)
}

// chatRun is one run of a chat's client: what its runner knows of it.
type chatRun struct {
	s      *Store
	chat   *Chat
	client Client
	prompt string
	// endClient ends the client (its events cannot be recorded).
	endClient context.CancelFunc
	// final is the client's own complete event, held until it exits.
	final                 *completeEvent
	started, sessionSaved bool
}

// start writes the client's files into the chat dir and starts it in a
// process group of its own, its stdout to be read.
func (r *chatRun) start(ctx context.Context, approveTimeout time.Duration) (*exec.Cmd, io.Reader, error) {
	chat, s := r.chat, r.s
	bin, err := s.bin()
	if err != nil {
		return nil, nil, err
	}
	spec := RunSpec{Child: chat.Child, ChatID: chat.ID, ChatDir: chat.Dir(), Prompt: s.withHumanAnswers(chat, r.prompt), Bin: bin,
		StateDir: s.StateDir, ApproveTimeout: approveTimeout}
	c, err := r.client.Command(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", r.client.Name(), err)
	}
	for name, content := range c.Files {
		if err := writeFile(chat.path(name), "chat file", []byte(content)); err != nil {
			return nil, nil, err
		}
	}
	env := append(os.Environ(), c.Env...)
	env = append(env, ChatEnv+"="+chat.ID, "INTERCEPTOR_STATE_DIR="+s.StateDir)
	exe, err := lookPath(c.Argv[0], env)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", r.client.Name(), err)
	}
	cmd := exec.CommandContext(ctx, exe, c.Argv[1:]...)
	cmd.Env, cmd.Dir = env, chat.Child.WorkingDir
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	cmd.Stderr = os.Stderr // the runner's log
	ownGroup(cmd, killGrace)
	cmd.WaitDelay = killGrace + 2*time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting %s: %v", exe, err)
	}
	return cmd, stdout, nil
}

// record appends the events of one line of the client's output to the
// log (the complete event is held back: final), the first with the chat's
// start, and keeps the client's session id once it says it. A log that
// cannot take them ends the client.
func (r *chatRun) record(norm Normalizer, line []byte) error {
	var evs []Normalized
	for _, ev := range norm.Line(line) {
		if end, ok := ev.(*completeEvent); ok {
			r.final = end
			continue
		}
		evs = append(evs, ev)
	}
	if len(evs) == 0 {
		return nil
	}
	if !r.started {
		evs = startFirst(evs, r.chat, r.client.Name(), r.prompt)
		r.started = true
	}
	if sid := norm.Session(); !r.sessionSaved && sid != "" {
		if _, err := r.s.update(r.chat.Child.ID, func(c *Child) error {
			if c.Session == "" {
				c.Session = sid
			}
			return nil
		}); err == nil {
			r.sessionSaved = true
		}
	}
	lines, err := encodeEvents(evs)
	if err == nil {
		_, err = r.chat.Append(lines...)
	}
	if err != nil {
		r.endClient()
		return &logError{err}
	}
	return nil
}

// outcome is the chat's end: the client's own complete event, unless the
// run was cancelled, its output could not be read or recorded, or it
// failed without one.
func (r *chatRun) outcome(ctx context.Context, readErr, waitErr error) (Status, string, string) {
	name := r.client.Name()
	switch {
	case ctx.Err() != nil:
		return Failed, "", "cancelled: the chat's process group was ended"
	case errors.As(readErr, new(*logError)):
		return Failed, "", "the chat's events could not be recorded, so the client was ended: " + readErr.Error()
	case readErr != nil:
		return Failed, "", "reading the client's output: " + readErr.Error()
	case r.final != nil:
		if waitErr != nil && r.final.Status == Complete {
			return Failed, r.final.Result, fmt.Sprintf("%s exited with %v after reporting success", name, waitErr)
		}
		return r.final.Status, r.final.Result, r.final.Error
	case waitErr != nil:
		return Failed, "", fmt.Sprintf("%s exited with %v%s", name, waitErr, stderrTail(r.chat))
	}
	return Failed, "", name + " exited without a final result" + stderrTail(r.chat)
}

// startFirst makes sure a chat's log opens with a start event carrying the
// chat id, the client and the prompt.
func startFirst(evs []Normalized, chat *Chat, client, prompt string) []Normalized {
	var start *startEvent
	if len(evs) > 0 {
		start, _ = evs[0].(*startEvent)
	}
	if start == nil {
		start = &startEvent{Type: "start"}
		evs = append([]Normalized{start}, evs...)
	}
	start.Chat, start.Client, start.Prompt = chat.ID, client, prompt
	return evs
}

// readLines calls fn with every line of r (without its newline).
func readLines(r io.Reader, fn func([]byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) <= maxLine {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if line := bytes.TrimSpace(buf); len(line) > 0 {
			if ferr := fn(line); ferr != nil {
				io.Copy(io.Discard, br)
				return ferr
			}
		}
		buf = buf[:0]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, fs.ErrClosed) {
				return nil
			}
			return err
		}
	}
}

// lookPath finds name on the PATH of env (the child's), else as given.
func lookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v // the last one wins, as in exec
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on the PATH", name)
}

// stderrTail is the end of the runner's log, for a failure's message.
func stderrTail(chat *Chat) string {
	f, err := os.Open(chat.path(runnerLog))
	if err != nil {
		return ""
	}
	defer f.Close()
	st, _ := f.Stat()
	off := max(st.Size()-1024, 0)
	b := make([]byte, st.Size()-off)
	f.ReadAt(b, off)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	t := strings.TrimSpace(strings.Join(lines, " | "))
	if t == "" {
		return ""
	}
	return ": " + t
}

// Cancel ends a chat: the runner is asked to stop (it ends the client's
// process group and records the end); a runner that does not, and the
// group, are killed; the chat is marked failed (cancelled).
func (s *Store) Cancel(chatID string) (Status, error) {
	chat, err := s.Chat(chatID)
	if err != nil {
		return "", err
	}
	info, ierr := chat.Runner()
	if ierr == nil && chat.runnerAlive() {
		terminate(info.RunnerPID, false)
		deadline := time.Now().Add(killGrace + 5*time.Second)
		for chat.runnerAlive() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if chat.runnerAlive() {
			terminate(info.RunnerPID, true)
		}
		if info2, err := chat.Runner(); err == nil {
			info = info2
		}
	}
	if ierr == nil && info.ClientPGID > 0 && groupAlive(info.ClientPGID) && groupIsChats(info.ClientPGID, info.ClientStart, chat.ID) {
		killGroup(info.ClientPGID, hardKill)
		// Killed processes linger until reaped (by their parent, or init
		// for orphans): wait a little so "cancelled" means gone.
		for deadline := time.Now().Add(killGrace); groupAlive(info.ClientPGID) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	st, err := chat.finish(Failed, "cancelled", "")
	endChatProcs(chat.ID)
	return st, err
}

// endChatProcs waits a little for the processes that carry the chat in
// their environment to go (a hook whose request finish just denied), kills
// those left, and waits for them to be gone.
func endChatProcs(chatID string) {
	wait := func(d time.Duration) {
		for deadline := time.Now().Add(d); len(chatProcs(chatID)) > 0 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait(2 * time.Second)
	for _, pid := range chatProcs(chatID) {
		terminate(pid, true)
	}
	wait(time.Second)
}
