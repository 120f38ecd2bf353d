package doctor

import (
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
)

// doctorTrust checks the trust record of one hook, for a client that runs
// new or changed hooks only once the user trusts them (Codex).
func doctorTrust(cr *ClientReport, env install.Env, c *hooks.Client, f install.Hook, rep *HookReport, path string, scope install.Scope) {
	t := install.Trust(env, c, f, path)
	rep.Trust = t.State
	switch {
	case t.Err != nil:
		cr.add(Warn, "cannot tell whether %s trusts the hooks in %s: %v", c.Display, path, t.Err)
		return
	case t.State == "unknown":
		cr.add(Warn, "cannot tell whether %s trusts the %s hook in %s (it has fields doctor does not model); if it does not run: %s", c.Display, f.Event, path, c.TrustStep)
		return
	case t.State == "disabled":
		cr.add(Fail, "the %s hook in %s is disabled in %s: enable it where you trust hooks (%s)", f.Event, path, c.Display, c.TrustStep)
	case t.State == "trusted":
		cr.add(OK, "the %s hook in %s is trusted by %s", f.Event, path, c.Display)
	case t.State == "modified":
		cr.add(Fail, "the %s hook in %s changed since %s trusted it, so %s skips it: trust it again (%s)", f.Event, path, c.Display, c.Display, c.TrustStep)
	default:
		cr.add(Fail, "the %s hook in %s is not trusted yet, so %s skips it silently: %s", f.Event, path, c.Display, c.TrustStep)
	}
	if scope == install.Project && c.ProjectTrust && !t.ProjectTrusted {
		cr.add(Warn, "%s loads %s only when the project is trusted, and %s does not list %s as trusted", c.Display, path, t.Record, env.Project)
	}
}
