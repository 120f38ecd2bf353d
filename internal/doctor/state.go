package doctor

import (
	"fmt"
	"time"

	"github.com/interceptor-dev/interceptor/internal/state"
)

// ServerState is the tokens held for one server.
type ServerState struct {
	Server          string  `json:"server"`
	Sessions        int     `json:"sessions"`
	Current         bool    `json:"current"`
	OldestAgeSecond float64 `json:"oldest_age_seconds,omitempty"`
	NewestAgeSecond float64 `json:"newest_age_seconds,omitempty"`
	StaleTemps      int     `json:"stale_temp_files,omitempty"`
}

// StateReport is what doctor found in one state dir.
type StateReport struct {
	Dir      string        `json:"dir"`
	Exists   bool          `json:"exists"`
	Safe     bool          `json:"safe"`
	Sessions int           `json:"sessions"`
	Servers  []ServerState `json:"servers"`
	Findings []Finding     `json:"findings"`
}

// StaleAfter is the session age doctor calls stale (and suggests gc for).
const StaleAfter = 7 * 24 * time.Hour

// doctorState checks one state dir: owner, modes, no symlinks, and the
// tokens it holds.
func doctorState(dir string, now time.Time) StateReport {
	in := state.Inspect(dir, now)
	r := StateReport{Dir: dir, Exists: in.Exists, Safe: in.Safe(), Sessions: in.Sessions(), Servers: []ServerState{}, Findings: []Finding{}}
	add := func(level, format string, args ...any) {
		r.Findings = append(r.Findings, Finding{level, fmt.Sprintf(format, args...)})
	}
	if !in.Exists {
		add(Info, "does not exist yet (the first capture creates it)")
		return r
	}
	for _, p := range in.Problems {
		add(Fail, "%s", p)
	}
	if in.Safe() {
		add(OK, "safe: owned by you, private, no symlinks")
	}
	stale := 0
	for _, s := range in.Servers {
		name := s.Name
		if name == "" {
			name = s.Key
		}
		ss := ServerState{Server: name, Sessions: s.Sessions, Current: s.Current, StaleTemps: s.Temps}
		msg := fmt.Sprintf("server %q: %d session token(s)", name, s.Sessions)
		if s.Sessions > 0 {
			ss.OldestAgeSecond = now.Sub(s.Oldest).Seconds()
			ss.NewestAgeSecond = now.Sub(s.Newest).Seconds()
			msg += fmt.Sprintf(", oldest %s ago, newest %s ago", age(now.Sub(s.Oldest)), age(now.Sub(s.Newest)))
			if now.Sub(s.Oldest) > StaleAfter {
				stale++
			}
		}
		if s.Current {
			msg += "; a current token"
		}
		add(Info, "%s", msg)
		if s.Temps > 0 {
			add(Warn, "server %q: %d leftover temp file(s); 'interceptor gc' removes them", name, s.Temps)
		}
		r.Servers = append(r.Servers, ss)
	}
	if stale > 0 {
		add(Warn, "some sessions are older than %s: 'interceptor gc --older-than 7d' removes them", age(StaleAfter))
	}
	doctorOAuth(&r, dir, now)
	return r
}

// age is a rounded human duration: 45s, 12m, 5h, 3d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}
