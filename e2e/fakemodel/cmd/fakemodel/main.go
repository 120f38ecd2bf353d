// Command fakemodel serves the scripted fake model endpoints on an address,
// for running a client by hand against them:
//
//	fakemodel -addr 127.0.0.1:8787 -record /tmp/requests
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	record := flag.String("record", "", "directory receiving every request body")
	flag.Parse()
	if *record != "" {
		if err := os.MkdirAll(*record, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("fakemodel listening on http://%s", ln.Addr())
	srv := fakemodel.New(fakemodel.Options{RecordDir: *record, Logf: log.Printf})
	log.Fatal(http.Serve(ln, srv))
}
