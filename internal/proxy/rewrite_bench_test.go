package proxy

import (
	"fmt"
	"strconv"
	"testing"
)

// BenchmarkToolCallRoundTrip is one tools/call through the rewriter, as
// bench/proxy drives it: the request gets the held token, the result
// brings a new one (in _meta and a text line) which is captured and
// redacted, with a full history of older tokens held.
func BenchmarkToolCallRoundTrip(b *testing.B) {
	rw := newRW(b, testConfig())
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"next_step","arguments":{"step":"review","notes":"a short note of typical size for a workflow step"}}}`)
	results := make([][]byte, 200)
	for i := range results {
		tok := fmt.Sprintf("eyJzaWQiOiJzX2JlbmNoIiwic2VxIjo%08d.%064d", i, i)
		results[i] = []byte(`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"session_token":"` + tok + `"},"content":[{"type":"text","text":"Step accepted (seq ` + strconv.Itoa(i) + `).\nsession_token: ` + tok + `"}]}}`)
	}
	for i := range results {
		rw.FromClient(req)
		rw.FromServer(results[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if out := rw.FromClient(req); out.Drop {
			b.Fatal("dropped")
		}
		if out := rw.FromServer(results[i%len(results)]); out.Drop {
			b.Fatal("dropped")
		}
	}
}

// BenchmarkNotification is a server notification while tokens are held:
// it is searched for every held token.
func BenchmarkNotification(b *testing.B) {
	rw := holding(b, tok1)
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"message":"working on the next step"}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rw.FromServer(msg)
	}
}
