package install

import (
	"fmt"
	"runtime"
	"strconv"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tailscale/hujson"
	"github.com/tidwall/gjson"
)

func isWindows() bool { return runtime.GOOS == "windows" }

// hookEntry is one hook install writes: a command on an event, in a group
// with a matcher (Claude Code, Codex, Gemini CLI) or alone (Cursor).
type hookEntry struct {
	event   string
	sub     string // inject, capture, clear, approve
	matcher string // "" = no matcher (fires for every tool / event)
	command string
	timeout int // 0 = none written
}

// hookRaw is the compact JSON of the entry's hook object in a group.
func (h hookEntry) hookRaw() string {
	hook := []string{"type", jsonString("command"), "command", jsonString(h.command)}
	if h.timeout > 0 {
		hook = append(hook, "timeout", strconv.Itoa(h.timeout))
	}
	return obj(hook...)
}

// groupRaw is the compact JSON of the entry's matcher group.
func (h hookEntry) groupRaw() string {
	var kv []string
	if h.matcher != "" {
		kv = append(kv, "matcher", jsonString(h.matcher))
	}
	kv = append(kv, "hooks", "["+h.hookRaw()+"]")
	return obj(kv...)
}

// flatRaw is Cursor's hook object.
func (h hookEntry) flatRaw() string {
	if h.timeout > 0 {
		return obj("command", jsonString(h.command), "timeout", strconv.Itoa(h.timeout))
	}
	return obj("command", jsonString(h.command))
}

// foundHook is an interceptor hook located in a config.
type foundHook struct {
	event   string
	evi     int // the event's index in the hooks object
	group   int // index in the event's array
	index   int // index in the group's hooks (-1 for flat configs)
	command HookCommand
	raw     string // the command as written
	matcher *string
	hook    gjson.Result  // the hook object, as plain JSON
	cmd     *hujson.Value // the command's value in the document
	obj     list          // the hook object in the document
}

// parseHooks parses a config and finds its "hooks" object; ok is false for
// an empty file or one without hooks.
func parseHooks(path string, doc []byte, c *hooks.Client) (*editor, list, bool, error) {
	if len(trimSpace(doc)) == 0 {
		return nil, list{}, false, nil
	}
	e, err := parseConfig(path, doc, c)
	if err != nil {
		return nil, list{}, false, err
	}
	hooksObj, ok, err := hooksObject(path, e)
	return e, hooksObj, ok, err
}

// hooksObject returns the top-level "hooks" object, if there is one (else
// the top level).
func hooksObject(path string, e *editor) (list, bool, error) {
	top := e.top()
	i, ok := top.find("hooks")
	if !ok {
		return top, false, nil
	}
	c, ok := top.child(i, '{')
	if !ok {
		return list{}, false, fmt.Errorf("%s: \"hooks\" is not an object; fix it by hand", path)
	}
	return c, true, nil
}

// eachHook visits every command hook in the config, grouped or flat.
func eachHook(hooks list, fn func(h foundHook) bool) {
	for evi := range hooks.len() {
		arr, ok := hooks.child(evi, '[')
		if !ok || hooks.shadowed(evi) {
			continue
		}
		event := hooks.key(evi)
		for gi := range arr.len() {
			group, ok := arr.child(gi, '{')
			if !ok {
				continue
			}
			if _, ok := group.find("command"); ok {
				if !visit(event, evi, gi, -1, nil, group, fn) {
					return
				}
				continue
			}
			var matcher *string
			if mi, ok := group.find("matcher"); ok {
				s, isString := stringValue(group.value(mi))
				if !isString {
					// Not a string (a number, an array, …): its JSON text, which
					// no tool name matches as a regexp the client would use.
					s = string(hujson.Value{Value: group.value(mi).Value}.Pack())
				}
				matcher = &s
			}
			li, ok := group.find("hooks")
			if !ok {
				continue
			}
			hl, ok := group.child(li, '[')
			if !ok {
				continue
			}
			for hi := range hl.len() {
				ho, ok := hl.child(hi, '{')
				if !ok {
					continue
				}
				if !visit(event, evi, gi, hi, matcher, ho, fn) {
					return
				}
			}
		}
	}
}

func visit(event string, evi, gi, hi int, matcher *string, ho list, fn func(foundHook) bool) bool {
	ci, ok := ho.find("command")
	if !ok {
		return true
	}
	cmd, ok := stringValue(ho.value(ci))
	if !ok {
		return true
	}
	f := foundHook{event: event, evi: evi, group: gi, index: hi, raw: cmd, matcher: matcher,
		hook: plain(&hujson.Value{Value: ho.obj}), cmd: ho.value(ci), obj: ho}
	f.command, _ = parseHookCommand(cmd)
	return fn(f)
}

// mergeHooks puts each entry into the document: a hook of the same kind
// for the same server that is already there gets the new command (its
// other fields, e.g. a timeout the user changed, stay); otherwise the entry
// is appended to the event's list, creating the list and the hooks object
// as needed.
func mergeHooks(path string, e *editor, entries []hookEntry, server string, flat bool) ([]byte, error) {
	for _, en := range entries {
		hooks, ok, err := hooksObject(path, e)
		if err != nil {
			return nil, err
		}
		if en.sub == "approve" {
			if err := mergeApprove(path, e, hooks, ok, en, server, flat); err != nil {
				return nil, err
			}
			continue
		}
		raw := en.groupRaw()
		if flat {
			raw = en.flatRaw()
		}
		if !ok {
			e.insert(hooks, "hooks", obj(en.event, "["+raw+"]"))
			continue
		}
		var mine *foundHook
		eachHook(hooks, func(h foundHook) bool {
			if h.event == en.event && h.command.Sub == en.sub && h.command.serves(server) {
				mine = &h
				return false
			}
			return true
		})
		if mine != nil {
			if mine.raw != en.command {
				replace(mine.cmd, jsonString(en.command))
			}
			continue
		}
		evi, ok := hooks.find(en.event)
		if !ok {
			e.insert(hooks, en.event, "["+raw+"]")
			continue
		}
		arr, ok := hooks.child(evi, '[')
		if !ok {
			return nil, fmt.Errorf("%s: hooks.%s is not a list; fix it by hand", path, en.event)
		}
		e.insert(arr, "", raw)
	}
	return e.bytes(), nil
}

// unmergeHooks removes every interceptor hook for exactly this server, then
// the groups, event lists and hooks object that this leaves empty.
//
// An event list or hooks object that the backup (the file before install;
// nil if none) holds empty stays, as [] or {}.
func unmergeHooks(path string, e *editor, server string, backup []byte) ([]byte, error) {
	before := standardJSON(backup)
	keep := func(event string) bool {
		if before == nil {
			return false
		}
		if event == "" {
			return gjson.GetBytes(before, "hooks").IsObject()
		}
		v := gjson.GetBytes(before, "hooks."+gjson.Escape(event))
		return v.IsArray() && len(v.Array()) == 0
	}
	for {
		hooks, ok, err := hooksObject(path, e)
		if err != nil {
			return nil, err
		}
		if !ok {
			return e.bytes(), nil
		}
		// The server's approve hooks first: they are found through its inject.
		target := ownedApprove(hooks, server)
		if target == nil {
			eachHook(hooks, func(h foundHook) bool {
				if h.command.serves(server) {
					target = &h
					return false
				}
				return true
			})
		}
		if target == nil {
			return e.bytes(), nil
		}
		removeFound(e, hooks, *target, keep)
	}
}

// removeFound takes out one hook and whatever it leaves empty.
func removeFound(e *editor, hooks list, h foundHook, keep func(event string) bool) {
	arr, _ := hooks.child(h.evi, '[')
	if h.index >= 0 {
		group, _ := arr.child(h.group, '{')
		li, _ := group.find("hooks")
		hl, _ := group.child(li, '[')
		if hl.len() > 1 {
			e.remove(hl, h.index)
			return
		}
	}
	if arr.len() > 1 || keep(h.event) {
		e.remove(arr, h.group)
		return
	}
	if hooks.len() > 1 || keep("") {
		e.remove(hooks, h.evi)
		return
	}
	top := e.top()
	hi, _ := top.find("hooks")
	e.remove(top, hi)
}

// findHooks lists the interceptor hooks (and, with all, every command hook)
// of a JSON config, for doctor.
func findHooks(path string, doc []byte, all bool, c *hooks.Client) ([]foundHook, error) {
	_, hooks, ok, err := parseHooks(path, doc, c)
	if err != nil || !ok {
		return nil, err
	}
	var out []foundHook
	eachHook(hooks, func(h foundHook) bool {
		if all || h.command.Sub != "" {
			out = append(out, h)
		}
		return true
	})
	return out, nil
}

// prepare reads a config to edit: the file, or newDoc for one that does not
// exist or is empty.
func prepare(path string, doc []byte, newDoc string, c *hooks.Client) (*editor, error) {
	if len(trimSpace(doc)) == 0 {
		doc = []byte(newDoc)
	}
	return parseConfig(path, doc, c)
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\n' || b[j-1] == '\r') {
		j--
	}
	return b[i:j]
}

// jsonUnmerge is unmerge for the JSON configs: a file install created and
// that holds nothing else goes.
func jsonUnmerge(path string, doc []byte, server, newDoc string, created bool, c *hooks.Client) ([]byte, error) {
	if len(trimSpace(doc)) == 0 {
		return doc, nil
	}
	e, err := parseConfig(path, doc, c)
	if err != nil {
		return nil, err
	}
	backup, _ := readFileIfExists(path + BackupSuffix)
	out, err := unmergeHooks(path, e, server, backup)
	if err != nil {
		return nil, err
	}
	if created && string(trimSpace(out)) == string(trimSpace([]byte(newDoc))) && string(out) != string(doc) {
		return nil, nil
	}
	return out, nil
}

// commandFor builds one hook command line.
func commandFor(o Options, client, sub string, extra []string) string {
	return shellJoin(hookArgv(o.hookBin(), sub, client, o.Server, extra))
}

// injectHook finds the server's inject hook, the anchor of its approve hook.
func injectHook(hooks list, server string) *foundHook {
	var inject *foundHook
	eachHook(hooks, func(h foundHook) bool {
		if h.command.Sub == "inject" && h.command.serves(server) {
			inject = &h
			return false
		}
		return true
	})
	return inject
}

// ownedApprove finds the approve hook install wrote for server: approve has
// no --server, so it is the one in install's form (installsApprove) in the
// same group as the server's inject hook (Claude Code, Codex, Gemini CLI),
// or the entry right before it in the same event list (Cursor).
func ownedApprove(hooks list, server string) *foundHook {
	inject := injectHook(hooks, server)
	if inject == nil {
		return nil
	}
	var found *foundHook
	eachHook(hooks, func(h foundHook) bool {
		if h.command.Sub != "approve" || h.evi != inject.evi || !h.command.installsApprove(inject.command.Bin, inject.command.clientFlag()) {
			return true
		}
		if inject.index >= 0 && h.index >= 0 && h.group == inject.group ||
			inject.index < 0 && h.index < 0 && h.group == inject.group-1 {
			found = &h
			return false
		}
		return true
	})
	return found
}

// mergeApprove puts the approve entry in front of the server's inject hook
// (merged before it): in its group, or right before it in a flat list. An
// approve hook already there gets the new command, and the entry's timeout
// when its own is missing or shorter.
// refreshApprove brings an approve hook install wrote up to date: the new
// command, and a timeout raised to en's when missing or shorter (one the
// user made longer stays).
func refreshApprove(e *editor, h *foundHook, en hookEntry) {
	if h.raw != en.command {
		replace(h.cmd, jsonString(en.command))
	}
	if en.timeout <= 0 {
		return
	}
	to := h.hook.Get("timeout")
	switch {
	case to.Type == gjson.Number && to.Float() >= float64(en.timeout):
	case to.Exists():
		ti, _ := h.obj.find("timeout")
		replace(h.obj.value(ti), strconv.Itoa(en.timeout))
	default:
		e.insert(h.obj, "timeout", strconv.Itoa(en.timeout))
	}
}

func mergeApprove(path string, e *editor, hooks list, ok bool, en hookEntry, server string, flat bool) error {
	if !ok {
		return fmt.Errorf("%s: no inject hook to put the approve hook in front of", path)
	}
	if h := ownedApprove(hooks, server); h != nil {
		refreshApprove(e, h, en)
		return nil
	}
	inject := injectHook(hooks, server)
	if inject == nil {
		return fmt.Errorf("%s: no inject hook to put the approve hook in front of", path)
	}
	arr, _ := hooks.child(inject.evi, '[')
	if flat {
		e.insertBefore(arr, inject.group, en.flatRaw())
		return nil
	}
	group, _ := arr.child(inject.group, '{')
	li, _ := group.find("hooks")
	hl, _ := group.child(li, '[')
	e.insertBefore(hl, inject.index, en.hookRaw())
	return nil
}
