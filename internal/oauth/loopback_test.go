package oauth

import (
	"fmt"
	"net"
	"strings"
	"testing"
)

// A taken --callback-port is named in one line with what to do, not a
// raw "bind: address already in use".
func TestCallbackPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	_, err = listenCallback(port, "st4te")
	want := fmt.Sprintf("the redirect listener: port %d of 127.0.0.1 is taken by another program: free it, or give another --callback-port", port)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("a taken port: %v, want %q", err, want)
	}
}
