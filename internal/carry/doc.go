// Package carry is the one core of what interceptor carries, for hook mode
// (internal/lifecycle) and proxy mode (internal/proxy) alike: each of them
// is a thin adapter that says where what is held lives (the state store, or
// the connection's memory) and how a call or a result reaches it.
//
// A handle is any value a server mints and later calls pass back: a
// session token, an index, a pid. What to do with one (find it, hold it,
// inject it, repair a near miss, show it as a stand-in) is internal/token's
// per value; carry holds what both modes do around it.
//
// The files:
//
//   - options.go is the one definition of the handle options (Table): each
//     option's name, type, default, help, whether the environment may set
//     it, whether inject and capture must agree on it, whether --handles
//     replaces it, which commands take it and install's help for passing
//     it on. The flags of inject, capture, clear, proxy and install, the
//     environment allow-list, install's argv and doctor's reading of it all
//     come from it; Options.Set parses one by name without a flag package,
//     and Resolve, Specs and the Validate methods make them ready to use.
//   - argv.go writes options as a hook's command-line words (Args) and
//     reads them back out of one (Given).
//   - result.go is the one reader of an MCP tool result (ReadResult,
//     ContentTexts): which parts of it a value may be taken from.
//   - carry.go holds, retires on start and takes from a result (Holder,
//     Resume, Retire, Take) over token.Spec, including the latch that stops
//     reading prose lines once _meta carried a handle.
package carry
