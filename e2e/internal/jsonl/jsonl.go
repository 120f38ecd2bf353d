// Package jsonl is the e2e servers' call logs: one JSON record a line,
// appended by every instance of a server at once and read back by the tests.
package jsonl

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
)

// Log appends records to one file. A nil *Log (no path) writes nothing.
type Log struct {
	who string // names the writer in its error lines
	mu  sync.Mutex
	f   *os.File
}

// Open opens path for appending; with path "" it returns a nil *Log.
func Open(path, who string) (*Log, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &Log{who: who, f: f}, nil
}

// Write appends v as one line. One write per line on an O_APPEND file:
// concurrent instances do not interleave.
func (l *Log) Write(v any) {
	if l == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		fmt.Fprintf(os.Stderr, "%s: log: %v\n", l.who, err)
	}
}

// Close closes the file.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}

// Read parses a log (a missing file: no records).
func Read[T any](path string) ([]T, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []T
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r T
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return out, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}
