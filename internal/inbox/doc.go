// Package inbox serves one local web page (interceptor inbox) where a person
// answers everything that waits for them: the approval queue's requests
// (allow, deny with a reason, allow with edited input), human tools'
// questions (a form laid out by the tool's declared input schema), and the
// children's chats as they run, with each chat's requests inline. It also
// tells the person when something starts waiting (notify.go).
//
// It adds no second way to decide: a decision is approvals.Store.Decide, an
// answer approvals.Store.AnswerInput, with decided_by from
// approvals.Decider, exactly as `interceptor approvals` and `mcp --role
// supervisor` do. What the page shows goes through the same views: the
// queue's Viewer (stand-ins for every held token) and children's Viewer,
// then approvals.Visible on every string, so control and bidi characters
// arrive as visible escapes; the page's script only ever sets textContent.
//
// The page is an admin page on loopback (auth.go), guarded against another
// user of the machine: no cookie (cookies ignore ports); the page's key,
// kept in the state dir (key.go), reaches the browser in the printed URL's
// fragment, and the page proves it, without sending it, for a session
// token its script sends in a header; every action needs a same-origin
// Origin; every request's Host must be the listener's (a DNS rebinding
// attack names another host); binding beyond loopback needs
// Options.AllowRemote. Everything the page loads is embedded (assets/): no
// third-party asset, no build step.
//
// The files: server.go is the server (Listen, Serve, the routes); key.go
// the key file; auth.go the handshake, sessions, Host and Origin checks;
// action.go the bodies of the page's POSTs, decoded strictly; view.go
// renders requests and the history for the page, chats.go the children,
// their chats and a chat's events; childact.go starts, continues and
// cancels children as `interceptor children` does; rules.go makes a
// standing rule from a request (and decides the request by it), lists
// and revokes rules; stream.go the server-sent events; notify.go the
// notifications; source.go where the open requests come from and
// decisions go (this machine's queue, or every machine's through
// internal/relay); machines.go other machines' children, as their relays
// publish them: summaries only (ChildrenJSON, ChildrenElsewhere).
//
// The package uses net/http, so only interceptor-http (through
// internal/cli/httpcmd) links it: the hook binary's start-up stays as it is.
package inbox
