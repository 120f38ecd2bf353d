package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type rec struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// Concurrent writers through two Logs on one file leave whole lines that
// Read gives back; a torn line is an error naming the file and line.
func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if got, err := Read[rec](path); err != nil || got != nil {
		t.Fatalf("missing file: %v %v", got, err)
	}
	var wg sync.WaitGroup
	for w := range 2 {
		l, err := Open(path, "test")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer l.Close()
			for i := range 200 {
				l.Write(rec{N: w*1000 + i, Text: strings.Repeat("x", 500)})
			}
		}()
	}
	wg.Wait()
	got, err := Read[rec](path)
	if err != nil || len(got) != 400 {
		t.Fatalf("Read: %d records, %v", len(got), err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"n":1,"te` + "\n")
	f.Close()
	if _, err := Read[rec](path); err == nil || !strings.Contains(err.Error(), "log.jsonl:401:") {
		t.Fatalf("torn line: %v", err)
	}
	var none *Log
	none.Write(rec{}) // no path: writes nothing, no panic
	if l, err := Open("", "test"); l != nil || err != nil {
		t.Fatalf(`Open(""): %v %v`, l, err)
	}
}
