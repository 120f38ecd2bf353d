package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Versions are the protocol revisions this server speaks, newest first:
// ModernVersions (revision.go), then the ones initialize negotiates.
var Versions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// MaxMessage bounds one incoming line.
const MaxMessage = 16 << 20

// Tool is one tool the server offers.
type Tool struct {
	Name        string
	Description string
	InputSchema string // a JSON Schema object, raw JSON
	// Call runs the tool. A returned error becomes a tool result with
	// isError set and the error's text (the model sees it); ctx ends when
	// the client cancels the call or goes away.
	Call func(ctx context.Context, args gjson.Result) (Result, error)
}

// Result is a tool result: one text block.
type Result struct {
	Text    string
	IsError bool
}

// Server is an MCP server over one stream pair.
type Server struct {
	Name, Version string
	Instructions  string
	Tools         []Tool

	mu  sync.Mutex // serializes writes
	out io.Writer
}

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
)

// Serve reads requests from in until EOF (or ctx ends) and writes replies
// to out. In-flight tool calls are cancelled at EOF and waited for.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	s.out = out
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	var inflight sync.Map // request id (raw JSON) -> context.CancelFunc

	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, over, err := readLine(r, MaxMessage)
		switch {
		case over != nil:
			s.refuseOversized(over)
		case len(line) > 0:
			s.handle(ctx, line, &wg, &inflight)
		}
		if err != nil {
			cancel()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// readLine returns the next non-blank line, trimmed. A line over max bytes
// (its newline not counted, any other whitespace counted) is read to its
// end without being kept: readLine returns instead what its head says (its
// id and method), so that the sender can still be answered.
func readLine(r *bufio.Reader, max int) ([]byte, *rawjson.Head, error) {
	var buf []byte
	var over *rawjson.Head
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case over != nil:
			over.Write(chunk)
		case len(buf)+len(chunk)-ending(chunk, err) > max:
			over = new(rawjson.Head)
			over.Write(buf)
			over.Write(chunk)
			buf = nil
		default:
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over != nil {
			return nil, over, err
		}
		trimmed := trimSpace(buf)
		if len(trimmed) == 0 && err == nil {
			buf = buf[:0]
			continue
		}
		return trimmed, nil, err
	}
}

// ending is the length of chunk's line ending: the newline that ends a
// line (when err is nil), not counted against the limit.
func ending(chunk []byte, err error) int {
	if err == nil && len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
		return 1
	}
	return 0
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// refuseOversized answers a line over MaxMessage, of which only its head
// was read: with the request's id when the head holds one, else null.
func (s *Server) refuseOversized(h *rawjson.Head) {
	id := h.ID
	if id == "" {
		id = "null"
	}
	s.replyError(id, codeInvalidRequest, fmt.Sprintf("invalid request: message over %d bytes (%d MiB), not read", MaxMessage, MaxMessage>>20))
}

func (s *Server) handle(ctx context.Context, line []byte, wg *sync.WaitGroup, inflight *sync.Map) {
	// gjson recurses per level: a line nested millions deep would overflow
	// the stack, which recover cannot catch. Head reads the id without
	// recursing, so the sender still gets its error.
	if rawjson.DepthExceeds(line, rawjson.MaxDepth) {
		var h rawjson.Head
		h.Write(line)
		id := h.ID
		if id == "" {
			id = "null"
		}
		s.replyError(id, codeParse, fmt.Sprintf("parse error: message nested deeper than %d levels", rawjson.MaxDepth))
		return
	}
	if !gjson.ValidBytes(line) {
		s.replyError("null", codeParse, "parse error: not valid JSON")
		return
	}
	msg := gjson.ParseBytes(line)
	if !msg.IsObject() {
		s.replyError("null", codeInvalidRequest, "invalid request: not a JSON-RPC object (batches are not supported)")
		return
	}
	id := msg.Get("id")
	method := msg.Get("method")
	if !method.Exists() {
		return // a response to a request we never send, or junk: ignore
	}
	if method.Type != gjson.String {
		if id.Exists() {
			// Echo only an id JSON-RPC allows: not an object, say.
			raw := id.Raw
			if id.Type != gjson.String && id.Type != gjson.Number {
				raw = "null"
			}
			s.replyError(raw, codeInvalidRequest, "invalid request: method is not a string")
		}
		return
	}
	params := msg.Get("params")
	if !id.Exists() { // a notification
		if method.Str == "notifications/cancelled" {
			if c, ok := inflight.Load(params.Get("requestId").Raw); ok {
				c.(context.CancelFunc)()
			}
		}
		return
	}
	if id.Type != gjson.String && id.Type != gjson.Number {
		s.replyError("null", codeInvalidRequest, "invalid request: id must be a string or a number")
		return
	}
	e, ok := s.eraOf(id.Raw, params)
	if !ok {
		return
	}
	switch method.Str {
	case "initialize", "ping":
		if e.modern {
			// 2026-07-28 removed both (SEP-2575): a request that names it
			// is answered as the SDK's servers answer it.
			s.replyError(id.Raw, codeNoMethod, fmt.Sprintf("method not found: %s is not part of revision %s", method.Str, e.version))
			return
		}
		if method.Str == "ping" {
			s.reply(id.Raw, e, &pingResult{})
			return
		}
		s.initialize(id.Raw, params)
	case "server/discover":
		s.discover(id.Raw, e)
	case "subscriptions/listen":
		if !e.modern {
			s.replyError(id.Raw, codeNoMethod, "method not found: subscriptions/listen (2026-07-28 or later)")
			return
		}
		s.listen(id.Raw, e)
	case "tools/list":
		s.toolsList(id.Raw, e)
	case "tools/call":
		s.startCall(ctx, id.Raw, e, params, wg, inflight)
	default:
		s.replyError(id.Raw, codeNoMethod, "method not found: "+method.Str)
	}
}

// startCall starts a tools/call in a goroutine of its own, cancelled by
// notifications/cancelled (inflight) or the end of ctx; wg waits for it.
func (s *Server) startCall(ctx context.Context, id string, e era, params gjson.Result, wg *sync.WaitGroup, inflight *sync.Map) {
	name := params.Get("name")
	var tool *Tool
	for i := range s.Tools {
		if s.Tools[i].Name == name.Str {
			tool = &s.Tools[i]
		}
	}
	if name.Type != gjson.String || tool == nil {
		s.replyError(id, codeInvalidParams, fmt.Sprintf("unknown tool %q", name.String()))
		return
	}
	args := params.Get("arguments")
	if args.Exists() && args.Type != gjson.Null && !args.IsObject() {
		s.replyError(id, codeInvalidParams, "arguments must be an object")
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	inflight.Store(id, cancel)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer inflight.Delete(id)
		defer cancel()
		s.call(cctx, id, e, tool, args)
	}()
}

// The results and errors this server sends. Each result embeds modern,
// the members a 2026-07-28 result adds (revision.go); a legacy one leaves
// them out.
type (
	pingResult struct{ modern }

	initializeResult struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      serverInfo      `json:"serverInfo"`
		Instructions    string          `json:"instructions,omitempty"`
	}
	serverInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}

	toolsListResult struct {
		Tools []toolInfo `json:"tools"`
		modern
	}
	toolInfo struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}

	callResult struct {
		Content []textBlock `json:"content"`
		IsError bool        `json:"isError,omitempty"`
		modern
	}
	textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}

	rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	// message is a JSON-RPC response (ID with Result or Error) or
	// notification (Method, Params).
	message struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Method  string          `json:"method,omitempty"`
		Params  any             `json:"params,omitempty"`
		Result  any             `json:"result,omitempty"`
		Error   *rpcError       `json:"error,omitempty"`
	}
)

// initialize answers the legacy handshake with the revision the client
// asks for when this server speaks it, else the newest legacy one (a
// client asking for 2026-07-28 here has fallen back from it).
func (s *Server) initialize(id string, params gjson.Result) {
	version := ""
	want := params.Get("protocolVersion").Str
	for _, v := range Versions {
		if slices.Contains(ModernVersions, v) {
			continue
		}
		if version == "" || v == want {
			version = v
		}
	}
	s.replyResult(id, &initializeResult{ProtocolVersion: version, Capabilities: json.RawMessage(capabilities),
		ServerInfo: serverInfo{s.Name, s.Version}, Instructions: s.Instructions})
}

func (s *Server) toolsList(id string, e era) {
	res := &toolsListResult{Tools: []toolInfo{}}
	for _, t := range s.Tools {
		schema := t.InputSchema
		if schema == "" || !gjson.Valid(schema) {
			schema = `{"type":"object"}`
		}
		res.Tools = append(res.Tools, toolInfo{t.Name, t.Description, json.RawMessage(schema)})
	}
	if e.modern {
		res.cacheable()
	}
	s.reply(id, e, res)
}

func (s *Server) call(ctx context.Context, id string, e era, t *Tool, args gjson.Result) {
	var res Result
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("internal error: %v", r)
			}
		}()
		res, err = t.Call(ctx, args)
	}()
	if err != nil {
		res = Result{Text: err.Error(), IsError: true}
	}
	s.reply(id, e, &callResult{Content: []textBlock{{"text", res.Text}}, IsError: res.IsError})
}

func (s *Server) replyResult(id string, result any) {
	s.write(message{ID: json.RawMessage(id), Result: result})
}

func (s *Server) replyError(id string, code int, msg string) {
	s.write(message{ID: json.RawMessage(id), Error: &rpcError{Code: code, Message: msg}})
}

// write sends msg on one line. A message that cannot be encoded (an id
// that is not JSON, which the reader never lets through) is answered as
// an internal error to id null, so the sender is not left waiting.
func (s *Server) write(msg message) {
	msg.JSONRPC = "2.0"
	b, err := rawjson.Marshal(msg)
	if err != nil {
		b = rawjson.AppendString([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":`), "internal error: the reply could not be encoded: "+err.Error())
		b = append(b, "}}"...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(append(b, '\n'))
}

// resultOf is a tool result whose text is v as JSON.
func resultOf(v any) (Result, error) {
	b, err := rawjson.Marshal(v)
	if err != nil {
		return Result{}, err
	}
	return Result{Text: string(b)}, nil
}
