package children

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

const (
	subDir    = "children"
	lockName  = ".lock"
	childFile = "child.json"
	maxFile   = 16 << 20
	timeFmt   = time.RFC3339Nano
)

// ErrUnknown means no child or chat has that name or id.
var ErrUnknown = errors.New("no such child")

// Child is one child agent: what it runs and the client's own session that
// every chat resumes.
type Child struct {
	ID         string
	Name       string
	Client     string // claude-code, codex, gemini, opencode
	WorkingDir string
	Model      string // "" the client's default
	MCPConfig  string // raw JSON object or a file path; "" none
	Approve    string // regex of tool names that need approval; "" every tool the client asks about
	HumanTools string // a human tools file (docs/human-tools.md), absolute; "" none
	// Unsupervised: created with approvals: false, a hook client child
	// runs without an approve hook, its tools under its own permission
	// settings; nobody is asked.
	Unsupervised bool
	Env          map[string]string // added to the client's environment
	Session      string            // the client's session id, once known
	Chats        int               // chats started so far
	Created      time.Time
}

// Store holds the children under a state dir.
type Store struct {
	StateDir string
	// Bin is the interceptor binary runners and approval routes run
	// (default: this executable).
	Bin         string
	LockTimeout time.Duration

	offsets offsets // where reads of each chat's log stopped
}

// New returns a store under stateDir.
func New(stateDir string) *Store {
	return &Store{StateDir: stateDir, LockTimeout: 5 * time.Second}
}

// Dir is <state dir>/children.
func (s *Store) Dir() string { return filepath.Join(s.StateDir, subDir) }

func (s *Store) childDir(id string) string { return filepath.Join(s.Dir(), id) }

func (s *Store) bin() (string, error) {
	if s.Bin != "" {
		return s.Bin, nil
	}
	return os.Executable()
}

// ensure creates (0700) and checks the state dir and the children dir.
func (s *Store) ensure() error {
	if err := os.MkdirAll(s.StateDir, 0o700); err != nil {
		return fmt.Errorf("creating state dir: %w", err)
	}
	if err := os.Mkdir(s.Dir(), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating %s: %w", s.Dir(), err)
	}
	for _, d := range []string{s.StateDir, s.Dir()} {
		if err := privfs.CheckDir(d); err != nil {
			return err
		}
	}
	return nil
}

// newID is 64 random bits from the runtime's generator: an id names a
// child, it is no secret (and crypto/rand would link math/big into every
// hook process of this binary).
func newID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// validID accepts only ids this package makes (hex), so an id never names
// another path.
func validID(id string) bool {
	if len(id) != 16 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ValidName reports whether name can name a child: 1 to 64 of letters,
// digits, '.', '_' and '-', not starting with '.' or '-'.
func ValidName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("child name %q: want 1 to 64 characters", name)
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			(i > 0 && (c == '.' || c == '-'))
		if !ok {
			return fmt.Errorf("child name %q: only letters, digits, '_', and (not first) '.' and '-'", name)
		}
	}
	return nil
}

// locked runs fn holding the lock file path.
func (s *Store) locked(path string, fn func() error) error {
	return privfs.Locked(path, "children", s.LockTimeout, fn)
}

// Create stores a new child. Its name must be unused.
func (s *Store) Create(c Child) (Child, error) {
	if err := ValidName(c.Name); err != nil {
		return Child{}, err
	}
	client, err := LookupClient(c.Client)
	if err != nil {
		return Child{}, err
	}
	if c.WorkingDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Child{}, err
		}
		c.WorkingDir = wd
	}
	abs, err := filepath.Abs(c.WorkingDir)
	if err != nil {
		return Child{}, fmt.Errorf("working_dir %q: %v", c.WorkingDir, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return Child{}, fmt.Errorf("working_dir %q: not a directory", c.WorkingDir)
	}
	c.WorkingDir = abs
	if c.Approve != "" {
		if _, err := regexp.Compile(c.Approve); err != nil {
			return Child{}, fmt.Errorf("approve %q: %v", c.Approve, err)
		}
	}
	if c.MCPConfig != "" {
		if err := checkMCPConfig(c.MCPConfig); err != nil {
			return Child{}, err
		}
	}
	if c.HumanTools != "" {
		if c.HumanTools, err = filepath.Abs(c.HumanTools); err != nil {
			return Child{}, fmt.Errorf("human_tools: %v", err)
		}
		if _, err := humantools.Load(c.HumanTools); err != nil {
			return Child{}, err
		}
	}
	if err := checkOptions(client, c); err != nil {
		return Child{}, err
	}
	if err := CheckApproveRoute(c); err != nil { // once more at each chat
		return Child{}, err
	}
	if err := s.ensure(); err != nil {
		return Child{}, err
	}
	c.ID, c.Created, c.Chats, c.Session = newID(), time.Now().UTC(), 0, ""
	if client.Traits().ChoosesSession {
		c.Session = newUUID()
	}
	err = s.locked(filepath.Join(s.Dir(), lockName), func() error {
		all, err := s.List()
		if err != nil {
			return err
		}
		for _, o := range all {
			if o.Name == c.Name {
				return fmt.Errorf("a child named %q exists already (id %s)", c.Name, o.ID)
			}
		}
		if err := os.Mkdir(s.childDir(c.ID), 0o700); err != nil {
			return err
		}
		return writeRecord(filepath.Join(s.childDir(c.ID), childFile), "child record", c.record())
	})
	if err != nil {
		return Child{}, err
	}
	return c, nil
}

// checkOptions refuses the per-child options the client cannot honour, and
// approvals: false for a client whose route is always wired.
func checkOptions(client Client, c Child) error {
	tr := client.Traits()
	for _, o := range []struct {
		name, why string
		set       bool
	}{
		{OptApprove, "its approvals go through the approve hook installed in its config, whose --match decides (interceptor install " + c.Client + " --approve --approve-match REGEX)", c.Approve != ""},
		{OptMCPConfig, "it runs with the MCP servers of its own config; add them there", c.MCPConfig != ""},
		{OptHumanTools, "serve them from its own config (interceptor mcp --role child --human-tools FILE as an MCP server, docs/human-tools.md)", c.HumanTools != ""},
	} {
		if o.set && !slices.Contains(tr.Options, o.name) {
			return fmt.Errorf("%s: a %s child cannot take it per child: %s", o.name, c.Client, o.why)
		}
	}
	if c.Unsupervised && !tr.HookApprovals {
		return fmt.Errorf("approvals: false: a %s child always asks through its own approval route; narrow it with approve (a regex of the tools that wait)", c.Client)
	}
	return nil
}

// maxMCPConfig bounds an mcp_config file: a list of servers.
const maxMCPConfig = 1 << 20

// readMCPConfig returns mcp_config's JSON: v itself when it is a JSON
// object, else the file v names, read only when it is a regular file (a
// FIFO would hang, /dev/zero grow without end) of at most maxMCPConfig,
// and refused when nested too deep to parse safely.
func readMCPConfig(v string) (string, error) {
	raw := v
	if !strings.HasPrefix(strings.TrimSpace(v), "{") {
		b, _, err := privfs.ReadRegular(v, "mcp_config", maxMCPConfig)
		if err != nil {
			return "", err
		}
		raw = string(b)
	}
	if rawjson.DepthExceeds([]byte(raw), rawjson.MaxDepth) {
		return "", fmt.Errorf("mcp_config %s: nested deeper than %d levels", v, rawjson.MaxDepth)
	}
	return raw, nil
}

// checkMCPConfig accepts a JSON object with mcpServers, or a readable file
// holding one.
func checkMCPConfig(v string) error {
	raw, err := readMCPConfig(v)
	if err != nil {
		return err
	}
	if !gjson.Valid(raw) || !gjson.Get(raw, "mcpServers").IsObject() {
		return fmt.Errorf("mcp_config: want a JSON object with mcpServers (or a file holding one)")
	}
	return nil
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Get finds a child by id or name.
func (s *Store) Get(idOrName string) (Child, error) {
	if validID(idOrName) {
		c, err := readChild(filepath.Join(s.childDir(idOrName), childFile))
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Child{}, err
		}
	}
	all, err := s.List()
	if err != nil {
		return Child{}, err
	}
	for _, c := range all {
		if c.Name == idOrName {
			return c, nil
		}
	}
	return Child{}, fmt.Errorf("%w: %q", ErrUnknown, idOrName)
}

// List returns every child, oldest first.
func (s *Store) List() ([]Child, error) {
	entries, err := os.ReadDir(s.Dir())
	if errors.Is(err, fs.ErrNotExist) {
		return []Child{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []Child{}
	for _, e := range entries {
		if !e.IsDir() || !validID(e.Name()) {
			continue
		}
		c, err := readChild(filepath.Join(s.Dir(), e.Name(), childFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue // being created
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// update changes a child under its lock.
func (s *Store) update(id string, fn func(*Child) error) (Child, error) {
	var out Child
	path := filepath.Join(s.childDir(id), childFile)
	err := s.locked(filepath.Join(s.childDir(id), lockName), func() error {
		c, err := readChild(path)
		if err != nil {
			return err
		}
		if err := fn(&c); err != nil {
			return err
		}
		out = c
		return writeRecord(path, "child record", c.record())
	})
	return out, err
}

// childHead and childTail are a child's members as stored and shown, in
// this order; the record (childRecord) has env between them, a summary
// (Summary) has env's names and the latest chat after them.
type childHead struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Client     string `json:"client"`
	WorkingDir string `json:"working_dir"`
	Model      string `json:"model"`
	MCPConfig  string `json:"mcp_config"`
	Approve    string `json:"approve"`
	HumanTools string `json:"human_tools"`
	Approvals  bool   `json:"approvals"`
}

type childTail struct {
	Session string `json:"session"`
	Chats   int    `json:"chats"`
	Created string `json:"created"`
}

// childRecord is a child as stored (child.json).
type childRecord struct {
	childHead
	Env map[string]string `json:"env"`
	childTail
}

func (c Child) head() childHead {
	return childHead{ID: c.ID, Name: c.Name, Client: c.Client, WorkingDir: c.WorkingDir, Model: c.Model,
		MCPConfig: c.MCPConfig, Approve: c.Approve, HumanTools: c.HumanTools, Approvals: !c.Unsupervised}
}

func (c Child) tail() childTail {
	return childTail{Session: c.Session, Chats: c.Chats, Created: c.Created.UTC().Format(timeFmt)}
}

func (c Child) record() childRecord {
	env := c.Env
	if env == nil {
		env = map[string]string{}
	}
	return childRecord{c.head(), env, c.tail()}
}

func readChild(path string) (Child, error) {
	data, err := privfs.ReadFile(path, "child record", maxFile)
	if err != nil {
		return Child{}, err
	}
	if !gjson.ValidBytes(data) {
		return Child{}, fmt.Errorf("child record %s: not valid JSON", path)
	}
	j := gjson.ParseBytes(data)
	created, _ := time.Parse(timeFmt, j.Get("created").Str)
	c := Child{
		ID: j.Get("id").Str, Name: j.Get("name").Str, Client: j.Get("client").Str,
		WorkingDir: j.Get("working_dir").Str, Model: j.Get("model").Str,
		MCPConfig: j.Get("mcp_config").Str, Approve: j.Get("approve").Str,
		HumanTools: j.Get("human_tools").Str, Unsupervised: j.Get("approvals").Type == gjson.False,
		Session: j.Get("session").Str, Chats: int(j.Get("chats").Int()), Created: created,
		Env: map[string]string{},
	}
	j.Get("env").ForEach(func(k, v gjson.Result) bool {
		c.Env[k.Str] = v.Str
		return true
	})
	if c.ID != filepath.Base(filepath.Dir(path)) {
		return Child{}, fmt.Errorf("child record %s: id %q does not match its directory", path, c.ID)
	}
	return c, nil
}

// writeFile replaces path whole, synced, 0600 (privfs.WriteFile); what
// names it in errors.
func writeFile(path, what string, data []byte) error {
	return privfs.WriteFile(path, what, data, privfs.WriteOptions{Sync: true})
}

// writeRecord writes v as a one-line JSON record (writeFile).
func writeRecord(path, what string, v any) error {
	b, err := rawjson.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s %s: %w", what, path, err)
	}
	return writeFile(path, what, append(b, '\n'))
}

// ChatID names one chat of one child: "<child id>-<n>". It is the
// session_id of the reference design's chat_async and poll.
func ChatID(child string, n int) string { return child + "-" + strconv.Itoa(n) }

// ParseChatID splits a chat id.
func ParseChatID(id string) (child string, n int, err error) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 || !validID(id[:i]) {
		return "", 0, fmt.Errorf("%w: chat %q (want <child id>-<n>)", ErrUnknown, id)
	}
	n, err = strconv.Atoi(id[i+1:])
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%w: chat %q (want <child id>-<n>)", ErrUnknown, id)
	}
	return id[:i], n, nil
}
