package install

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

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
	event     string
	group     int // index in the event's array
	index     int // index in the group's hooks (-1 for flat configs)
	command   HookCommand
	raw       string // the command as written
	cmdSpan   span
	matcher   *string
	hook      gjson.Result // the hook object
	hookStart int          // the hook object's offset in the document
}

// hooksObject returns the top-level "hooks" object, if there is one.
func hooksObject(path string, e *editor) (container, bool, error) {
	root, err := e.root()
	if err != nil {
		return container{}, false, fmt.Errorf("%s: %w", path, err)
	}
	m, _, ok := root.find("hooks")
	if !ok {
		return root, false, nil
	}
	if e.doc[m.val.start] != '{' {
		return container{}, false, fmt.Errorf("%s: \"hooks\" is not an object; fix it by hand", path)
	}
	c, err := e.at(m.val)
	return c, true, err
}

// eachHook visits every command hook in the config, grouped or flat.
func eachHook(e *editor, hooks container, fn func(h foundHook) bool) {
	for _, ev := range hooks.members {
		arr, ok := e.child(ev.val, '[')
		if !ok {
			continue
		}
		for gi, g := range arr.members {
			group, ok := e.child(g.val, '{')
			if !ok {
				continue
			}
			if cm, _, ok := group.find("command"); ok {
				if !visit(e, ev.key, gi, -1, nil, cm, g.val, fn) {
					return
				}
				continue
			}
			var matcher *string
			if mm, _, ok := group.find("matcher"); ok {
				s := gjson.ParseBytes(e.doc[mm.val.start:mm.val.end]).String()
				matcher = &s
			}
			hm, _, ok := group.find("hooks")
			if !ok {
				continue
			}
			list, ok := e.child(hm.val, '[')
			if !ok {
				continue
			}
			for hi, h := range list.members {
				ho, ok := e.child(h.val, '{')
				if !ok {
					continue
				}
				cm, _, ok := ho.find("command")
				if !ok {
					continue
				}
				if !visit(e, ev.key, gi, hi, matcher, cm, h.val, fn) {
					return
				}
			}
		}
	}
}

func visit(e *editor, event string, gi, hi int, matcher *string, cm member, hook span, fn func(foundHook) bool) bool {
	v := gjson.ParseBytes(e.doc[cm.val.start:cm.val.end])
	if v.Type != gjson.String {
		return true
	}
	f := foundHook{event: event, group: gi, index: hi, raw: v.Str, cmdSpan: cm.val, matcher: matcher,
		hook: gjson.ParseBytes(e.doc[hook.start:hook.end]), hookStart: hook.start}
	f.command, _ = parseHookCommand(v.Str)
	return fn(f)
}

// mergeHooks puts each entry into doc: a hook of the same kind for the
// same server that is already there gets the new command (its other fields,
// e.g. a timeout the user changed, stay); otherwise the entry is appended to
// the event's list, creating the list and the hooks object as needed.
func mergeHooks(path string, doc []byte, entries []hookEntry, server string, flat bool) ([]byte, error) {
	e := newEditor(doc)
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
		eachHook(e, hooks, func(h foundHook) bool {
			if h.event == en.event && h.command.Sub == en.sub && h.command.serves(server) {
				mine = &h
				return false
			}
			return true
		})
		if mine != nil {
			if mine.raw != en.command {
				e.replace(mine.cmdSpan, jsonString(en.command))
			}
			continue
		}
		ev, _, ok := hooks.find(en.event)
		if !ok {
			e.insert(hooks, en.event, "["+raw+"]")
			continue
		}
		if e.doc[ev.val.start] != '[' {
			return nil, fmt.Errorf("%s: hooks.%s is not a list; fix it by hand", path, en.event)
		}
		arr, err := e.at(ev.val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		e.insert(arr, "", raw)
	}
	return e.doc, nil
}

// unmergeHooks removes every interceptor hook for exactly this server, then
// the groups, event lists and hooks object that this leaves empty.
//
// An event list or hooks object that the backup (the file before install;
// nil if none) holds empty stays, as [] or {}.
func unmergeHooks(path string, doc []byte, server string, backup []byte) ([]byte, error) {
	keep := func(event string) bool {
		if backup == nil || !gjson.ValidBytes(backup) {
			return false
		}
		if event == "" {
			return gjson.GetBytes(backup, "hooks").IsObject()
		}
		v := gjson.GetBytes(backup, "hooks."+gjsonEscape(event))
		return v.IsArray() && len(v.Array()) == 0
	}
	e := newEditor(doc)
	for {
		hooks, ok, err := hooksObject(path, e)
		if err != nil {
			return nil, err
		}
		if !ok {
			return e.doc, nil
		}
		// The server's approve hooks first: they are found through its inject.
		target := ownedApprove(e, hooks, server)
		if target == nil {
			eachHook(e, hooks, func(h foundHook) bool {
				if h.command.serves(server) {
					target = &h
					return false
				}
				return true
			})
		}
		if target == nil {
			return e.doc, nil
		}
		removeFound(e, *target, keep)
	}
}

// removeFound takes out one hook and whatever it leaves empty.
func removeFound(e *editor, h foundHook, keep func(event string) bool) {
	// Re-walk the path from the root: every splice moves offsets.
	root, _ := e.root()
	hm, hi, _ := root.find("hooks")
	hooks, _ := e.at(hm.val)
	ev, evi, _ := hooks.find(h.event)
	arr, _ := e.at(ev.val)
	g := arr.members[h.group]
	removeGroup := h.index < 0
	if !removeGroup {
		group, _ := e.at(g.val)
		lm, _, _ := group.find("hooks")
		list, _ := e.at(lm.val)
		if len(list.members) > 1 {
			e.remove(list, h.index)
			return
		}
		removeGroup = true
	}
	if len(arr.members) > 1 || keep(h.event) {
		e.remove(arr, h.group)
		return
	}
	if len(hooks.members) > 1 || keep("") {
		e.remove(hooks, evi)
		return
	}
	e.remove(root, hi)
}

// findHooks lists the interceptor hooks (and, with all, every command hook)
// of a JSON config, for doctor.
func findHooks(path string, doc []byte, all bool) ([]foundHook, error) {
	if err := checkJSON(path, doc); err != nil {
		return nil, err
	}
	if len(doc) == 0 {
		return nil, nil
	}
	e := newEditor(doc)
	hooks, ok, err := hooksObject(path, e)
	if err != nil || !ok {
		return nil, err
	}
	var out []foundHook
	eachHook(e, hooks, func(h foundHook) bool {
		if all || h.command.Sub != "" {
			out = append(out, h)
		}
		return true
	})
	return out, nil
}

// prepare checks a config and gives the bytes to edit: the file, or newDoc
// for one that does not exist or is empty.
func prepare(path string, doc []byte, newDoc string) ([]byte, error) {
	if err := checkJSON(path, doc); err != nil {
		return nil, err
	}
	if len(trimSpace(doc)) == 0 {
		return []byte(newDoc), nil
	}
	return doc, nil
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
func jsonUnmerge(path string, doc []byte, server, newDoc string, created bool) ([]byte, error) {
	if err := checkJSON(path, doc); err != nil {
		return nil, err
	}
	if len(trimSpace(doc)) == 0 {
		return doc, nil
	}
	backup, _ := readFileIfExists(path + BackupSuffix)
	out, err := unmergeHooks(path, doc, server, backup)
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
	return shellJoin(hookArgv(o.Bin, sub, client, o.Server, extra))
}

// gjsonEscape escapes a key for a gjson path.
func gjsonEscape(k string) string {
	var sb strings.Builder
	for _, r := range k {
		if strings.ContainsRune(`.*?|#@\!=<>%`, r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// injectHook finds the server's inject hook, the anchor of its approve hook.
func injectHook(e *editor, hooks container, server string) *foundHook {
	var inject *foundHook
	eachHook(e, hooks, func(h foundHook) bool {
		if h.command.Sub == "inject" && h.command.serves(server) {
			inject = &h
			return false
		}
		return true
	})
	return inject
}

// ownedApprove finds the approve hook install wrote for server: approve has
// no --server, so it is the one in the same group as the server's inject
// hook (Claude Code, Codex, Gemini CLI), or the entry right before it in the
// same event list (Cursor).
func ownedApprove(e *editor, hooks container, server string) *foundHook {
	inject := injectHook(e, hooks, server)
	if inject == nil {
		return nil
	}
	var found *foundHook
	eachHook(e, hooks, func(h foundHook) bool {
		if h.command.Sub != "approve" || h.event != inject.event {
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
func mergeApprove(path string, e *editor, hooks container, ok bool, en hookEntry, server string, flat bool) error {
	if !ok {
		return fmt.Errorf("%s: no inject hook to put the approve hook in front of", path)
	}
	if h := ownedApprove(e, hooks, server); h != nil {
		if h.raw != en.command {
			e.replace(h.cmdSpan, jsonString(en.command))
		}
		if en.timeout <= 0 {
			return nil
		}
		// Re-find it: the replace moved the offsets.
		h = ownedApprove(e, hooks2(e), server)
		if h == nil {
			return fmt.Errorf("%s: lost the approve hook while editing", path)
		}
		to := h.hook.Get("timeout")
		switch {
		case to.Type == gjson.Number && to.Float() >= float64(en.timeout):
		case to.Exists():
			v := span{h.hookStart + int(to.Index), h.hookStart + int(to.Index) + len(to.Raw)}
			e.replace(v, strconv.Itoa(en.timeout))
		default:
			c, err := e.at(span{h.hookStart, h.hookStart + len(h.hook.Raw)})
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			e.insert(c, "timeout", strconv.Itoa(en.timeout))
		}
		return nil
	}
	inject := injectHook(e, hooks, server)
	if inject == nil {
		return fmt.Errorf("%s: no inject hook to put the approve hook in front of", path)
	}
	ev, _, _ := hooks.find(inject.event)
	arr, err := e.at(ev.val)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if flat {
		e.insertBefore(arr, inject.group, en.flatRaw())
		return nil
	}
	group, err := e.at(arr.members[inject.group].val)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	lm, _, _ := group.find("hooks")
	list, err := e.at(lm.val)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	e.insertBefore(list, inject.index, en.hookRaw())
	return nil
}

// hooks2 re-reads the hooks object after an edit.
func hooks2(e *editor) container {
	c, _, _ := hooksObject("", e)
	return c
}
