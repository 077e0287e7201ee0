#!/bin/sh
# `npm start`: runs scripts/start.mjs (the bundle of src/main.ts) under Node.js with the flags of its database mode, in
# place of this shell (exec: signals reach the service itself). README: "Runtime flags".
#
# - On the embedded database (no DATABASE_URL) the young generation keeps Node.js's default size (semi-spaces of
#   16 MB): the service and its PostgreSQL stay within 350 MB under load (test/bench/README.md).
# - With DATABASE_URL (a deployment), semi-spaces of 64 MB: under a high rate of events the objects of a request die
#   young instead of being promoted and swept by full collections (the events' tail latency).
# - Never the memory reducer: it ran full, heap-shrinking collections while the service was busy.
#
# test/bench/lib/node-flags.ts reads the two lines below: keep their form.
EMBEDDED_FLAGS="--max-semi-space-size=16 --no-memory-reducer"
SERVER_FLAGS="--max-semi-space-size=64 --no-memory-reducer"

if [ -n "$DATABASE_URL" ]; then flags=$SERVER_FLAGS; else flags=$EMBEDDED_FLAGS; fi
# shellcheck disable=SC2086 # the flags are words
exec node $flags "$(dirname "$0")/start.mjs" "$@"
