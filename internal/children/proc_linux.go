package children

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// procStart is when process pid started (clock ticks after boot, field 22
// of /proc/<pid>/stat); ok is false when there is no such process.
func procStart(pid int) (start uint64, ok bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces and parens: count the
	// fields after its closing paren, which are field 3 on.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	return start, err == nil
}

// groupIsChats reports whether process group pgid is still the one a
// runner recorded (its leader started at start; 0 for a record that has
// no start, then the leader must carry the chat in its environment). Once
// the leader is gone the group holds only its leftovers: the kernel gives
// no new process a pid that still names a group. A leader pid that lives
// on with another start time is a stranger's process that reused it.
func groupIsChats(pgid int, start uint64, chatID string) bool {
	if pgid <= 1 {
		return false
	}
	got, alive := procStart(pgid)
	if !alive {
		return true
	}
	if start != 0 {
		return got == start
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pgid) + "/environ")
	return err == nil && chatID != "" && bytes.Contains(append([]byte{0}, env...), []byte("\x00"+ChatEnv+"="+chatID+"\x00"))
}

// chatProcs lists the processes whose environment names the chat: the
// client and whatever it started that kept its environment, in its
// process group or not (Codex's approve hook outlived the group).
func chatProcs(chatID string) []int {
	want := []byte("\x00" + ChatEnv + "=" + chatID + "\x00")
	dirs, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), want) {
			out = append(out, pid)
		}
	}
	return out
}
