#!/bin/sh
# Debugging stand-in for interceptor: appends the hook's argv and stdin to
# $LOGHOOK_FILE (default /tmp/loghook.jsonl) and passes the call through.
f=${LOGHOOK_FILE:-/tmp/loghook.jsonl}
{ printf '### %s\n' "$*"; cat; printf '\n'; } >>"$f"
exit 0
