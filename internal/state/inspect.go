package state

import (
	"errors"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Inspection is what doctor reports about a state dir: whether it is safe to
// use, and how many tokens it holds and how old they are. Ages are the
// files' modification times (a token file is never modified in place, so
// that is when its token was stored).
type Inspection struct {
	Dir      string
	Exists   bool
	Problems []string // each one line: an unsafe dir or file, an unreadable one
	Servers  []ServerInfo
}

// ServerInfo describes the tokens held for one server.
type ServerInfo struct {
	Key      string // the directory name (the server's name, or h-<hash> for odd names)
	Name     string // the server's name as recorded, when it can be read
	Sessions int    // session token files
	Current  bool   // a current token is held
	Oldest   time.Time
	Newest   time.Time // of the session files
	Temps    int       // leftover temp files older than TempGrace (gc removes them)
}

// Sessions is the number of session tokens held across all servers.
func (in Inspection) Sessions() int {
	n := 0
	for _, s := range in.Servers {
		n += s.Sessions
	}
	return n
}

// Safe reports whether the dir had no problems.
func (in Inspection) Safe() bool { return len(in.Problems) == 0 }

// Inspect looks at a state dir without changing anything. A missing dir is
// not a problem: the first capture creates it.
func Inspect(dir string, now time.Time) Inspection {
	in := Inspection{Dir: dir}
	if err := privfs.CheckDir(dir); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			in.Exists = true
			in.Problems = append(in.Problems, err.Error())
		}
		return in
	}
	in.Exists = true
	root := filepath.Join(dir, tokensDir)
	if err := privfs.CheckDir(root); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			in.Problems = append(in.Problems, err.Error())
		}
		return in
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		in.Problems = append(in.Problems, "state dir "+root+": "+err.Error())
		return in
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sd := filepath.Join(root, e.Name())
		if err := privfs.CheckDir(sd); err != nil {
			in.Problems = append(in.Problems, err.Error())
			continue
		}
		info, problems := inspectServer(sd, e.Name(), now)
		in.Problems = append(in.Problems, problems...)
		in.Servers = append(in.Servers, info)
	}
	sort.Slice(in.Servers, func(i, j int) bool { return in.Servers[i].Key < in.Servers[j].Key })
	return in
}

func inspectServer(dir, key string, now time.Time) (ServerInfo, []string) {
	info := ServerInfo{Key: key}
	if !strings.HasPrefix(key, "h-") {
		info.Name = key
	}
	var problems []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		return info, []string{"state dir " + dir + ": " + err.Error()}
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if strings.HasPrefix(name, tempPrefix) {
			if fi, err := os.Lstat(path); err == nil && now.Sub(fi.ModTime()) > TempGrace {
				info.Temps++
			}
			continue
		}
		if !isTokenFile(name) {
			continue
		}
		// openFile refuses symlinks, non-regular files, files open to others
		// or owned by someone else, exactly as the hooks would.
		f, err := privfs.OpenFile(path, "token file")
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		fi, err := f.Stat()
		f.Close()
		if err != nil {
			problems = append(problems, "token file "+path+": "+err.Error())
			continue
		}
		if name == currentFile {
			info.Current = true
			if info.Name == "" {
				if rec, err := readRecord(path); err == nil {
					info.Name = rec.Server
				}
			}
			continue
		}
		info.Sessions++
		t := fi.ModTime()
		if info.Oldest.IsZero() || t.Before(info.Oldest) {
			info.Oldest = t
		}
		if t.After(info.Newest) {
			info.Newest = t
		}
	}
	return info, problems
}
