package fakemodel

import (
	"path/filepath"
	"regexp"
	"strconv"
)

// What DCScript's processes and search look for.
const (
	// DCFirst and DCSecond are the two processes' names: each prints
	// "<name> ready", then "<name> got <line>" for each line of input.
	DCFirst  = "E2E-PROC-FIRST"
	DCSecond = "E2E-PROC-SECOND"
	// DCNeedleFile is a file under DCScript.Dir that the file search finds
	// by name; DCNeedle is its content, which the content search finds.
	DCNeedleFile = "e2e-needle.txt"
	DCNeedle     = "E2E-NEEDLE-CONTENT"
)

// DCProcess is the command of a process named name.
func DCProcess(name string) string {
	return `echo ` + name + ` ready; while read l; do echo "` + name + ` got $l"; done`
}

// Turns of DCScript, by the number of tool results before them.
const (
	DCStartFirst      = iota // start_process (the first)
	DCStartSecond            // start_process (the second, the latest)
	DCReadLatest             // read_process_output, no pid: the latest
	DCReadFirst              // read_process_output, the first's pid as read
	DCInteractLatest         // interact_with_process, no pid: the latest
	DCInteractFirst          // interact_with_process, the first's pid as read
	DCTerminateLatest        // force_terminate, no pid: the latest
	DCReadFile               // read_file: takes no handle
	DCSearchFiles            // start_search, searchType files
	DCMoreFiles              // get_more_search_results, no sessionId
	DCSearchContent          // start_search, searchType content
	DCMoreContent            // get_more_search_results, no sessionId
	DCStopSearch             // stop_search, no sessionId
	DCTerminateFirst         // force_terminate, the first's pid as read
	DCToolCalls              // the number of tool calls
)

// dcPID is the pid in a start_process result as the model read it: the
// number, or the stand-in interceptor showed in its place.
var dcPID = regexp.MustCompile(`Process started with PID (\d+|\[pid [^\]]*held by interceptor\])`)

// DCPID returns the pid a start_process result shows, as the model passes
// it back: a number, or the stand-in string where one was shown; ok is false
// when the result shows none.
func DCPID(result string) (pid any, ok bool) {
	m := dcPID.FindStringSubmatch(result)
	if m == nil {
		return nil, false
	}
	if n, err := strconv.Atoi(m[1]); err == nil {
		return n, true
	}
	return m[1], true
}

// DCScript drives Desktop Commander (@wonderwhy-er/desktop-commander)
// configured as Server, with its handles carried by interceptor: the model
// passes pid only where it names the first process (read from that
// start_process result as it saw it) and never passes sessionId. Dir holds
// DCNeedleFile. See the DC* turns.
type DCScript struct{ Server, Dir string }

// Plan implements Script.
func (s DCScript) Plan(c Conversation, tools []Tool) (Action, bool) {
	names := []string{"start_process", "read_process_output", "interact_with_process", "force_terminate",
		"read_file", "start_search", "get_more_search_results", "stop_search"}
	t := map[string]Tool{}
	for _, n := range names {
		tool, ok := findTool(tools, s.Server, n)
		if !ok {
			return Action{Text: SideText}, false
		}
		t[n] = tool
	}
	first := any(MissingValue)
	if len(c.Results) > DCStartFirst {
		if pid, ok := DCPID(c.Results[DCStartFirst]); ok {
			first = pid
		}
	}
	turns := []Action{
		DCStartFirst:      {Tool: t["start_process"], Args: map[string]any{"command": DCProcess(DCFirst), "timeout_ms": 3000}},
		DCStartSecond:     {Tool: t["start_process"], Args: map[string]any{"command": DCProcess(DCSecond), "timeout_ms": 3000}},
		DCReadLatest:      {Tool: t["read_process_output"], Args: map[string]any{"offset": -5, "timeout_ms": 1000}},
		DCReadFirst:       {Tool: t["read_process_output"], Args: map[string]any{"pid": first, "offset": -5, "timeout_ms": 1000}},
		DCInteractLatest:  {Tool: t["interact_with_process"], Args: map[string]any{"input": "ping-latest", "timeout_ms": 2000}},
		DCInteractFirst:   {Tool: t["interact_with_process"], Args: map[string]any{"pid": first, "input": "ping-first", "timeout_ms": 2000}},
		DCTerminateLatest: {Tool: t["force_terminate"], Args: map[string]any{}},
		DCReadFile:        {Tool: t["read_file"], Args: map[string]any{"path": filepath.Join(s.Dir, DCNeedleFile)}},
		DCSearchFiles:     {Tool: t["start_search"], Args: map[string]any{"path": s.Dir, "pattern": "e2e-needle", "searchType": "files"}},
		DCMoreFiles:       {Tool: t["get_more_search_results"], Args: map[string]any{"offset": 0}},
		DCSearchContent:   {Tool: t["start_search"], Args: map[string]any{"path": s.Dir, "pattern": DCNeedle, "searchType": "content"}},
		DCMoreContent:     {Tool: t["get_more_search_results"], Args: map[string]any{"offset": 0}},
		DCStopSearch:      {Tool: t["stop_search"], Args: map[string]any{}},
		DCTerminateFirst:  {Tool: t["force_terminate"], Args: map[string]any{"pid": first}},
	}
	if i := len(c.Results); i < len(turns) {
		return turns[i], true
	}
	return Action{Text: FinalText}, true
}
