// Package relay is one inbox for many machines over NATS JetStream
// (docs/relay.md). Each machine's queue (internal/approvals) stays its
// source of truth; a Relay mirrors its open requests to the bucket
// interceptor_requests (key MACHINE.ID), masked as the machine's own views
// show them, with a heartbeat in interceptor_machines, and applies the
// decisions and answers that arrive on interceptor.MACHINE.act through the
// queue's own Decide and AnswerInput: their rules, their exactly-once. An
// Inbox is the page's source (inbox.Source) of every machine's requests:
// it follows both buckets and sends each action to the request's machine.
//
// The files: wire.go names what crosses the network (subjects, buckets,
// Entry, Presence, Action, Reply); relay.go the relay (a watch of open/,
// no poll; a resync after each reconnect or failure); inbox.go the page's
// source; connect.go the connection (credentials, TLS, reconnecting for
// ever).
//
// The package links the NATS client, so only interceptor-http (through
// internal/cli/httpcmd) links it: the hook binary links no network client.
package relay
