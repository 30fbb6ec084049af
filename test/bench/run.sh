#!/usr/bin/env bash
# test/bench/run.sh: the service's benchmarks in one go (docs/benchmarks.md).
#
#   1. single-event appends at concurrency 1, 8, 32 (BenchmarkAppend), each
#      beside pgbench's single-row insert at the same concurrency;
#   2. batched appends, 100 events per Append (BenchmarkAppendBatch);
#   3. projection rebuild over 1,000,000 synthetic ledger events with the real
#      binary (svc projections rebuild), then svc replay billing;
#   5. workflow execution against an instant fake LLM: orchestration
#      overhead per step, and EXEC_WORKFLOWS (100) workflows at once;
#      5b. push: an idle instance's statements per second, and append to
#      read model visible at PUSH_RATE appends/s;
#      5c. webhook: signed Stripe purchases handled per second, each granted
#      once after redelivery;
#      5d. hooks: outbound deliveries at HOOK_RATE (1,000/s) offered, to
#      workspace webhook endpoints beside workflows' own webhooks (the
#      same-run baseline): commit to first attempt p50/p99, delivered/s;
#   4. GET /api/billing/balance under wrk against a real svc serve, beside the
#      same route answered without a database read (401, no key) and
#      pgbench -S at the same concurrency, and paced near 5,000 req/s;
#   6. the workflows listing (GET /api/rigor/workflows' query, ListWorkflows)
#      over LIST_WORKFLOWS (1,000,000) workflows in the read model
#      (BenchmarkWorkflowList): p50 and p99 of a page per filter;
#   7. a credit charge with a cold ledger cache (BenchmarkCharge) on a ledger
#      of 10 events and one of CHARGE_EVENTS (1,000,000): the ledger
#      snapshots keep them equal (ratio near 1);
#   8. QualityGate's pattern checks on a 100 KB output
#      (BenchmarkPatternChecks100KB): p50 against its 10 ms target;
#   9. DedupQ's exact check p50 and semantic check p99 over DEDUPQ_RESULTS
#      (100,000) results of one organization (TestSuiteDedupQBench).
#
# Usage: make bench   (or: bash test/bench/run.sh after go build -o bin/svc ./cmd/svc)
# Environment: PGHOST, PGPORT, PGUSER (default 127.0.0.1, 5432, postgres);
#   BENCH_SECONDS (10: pgbench -T and Go -benchtime), WRK_DURATION (15s),
#   WRK_CONNECTIONS (32), PACED_RPS (5000), REBUILD_EVENTS (1000000), REBUILD_ORGS (10000),
#   REBUILD_ALL_BUDGET (150: seconds --all may take, else it is skipped),
#   BENCH_PORT (18090), LIST_WORKFLOWS (1000000), LIST_SAMPLES (500),
#   CHARGE_EVENTS (1000000),
#   PUSH_IDLE (30 s), PUSH_RATE (1000/s), PUSH_SECONDS (10),
#   WEBHOOK_EVENTS (2000), WEBHOOK_CONCURRENCY (16),
#   HOOK_RATE (1000/s), HOOK_SECONDS (10), DEDUPQ_RESULTS (100000),
#   BENCH_SKIP (space-separated: append batch rebuild http exec push webhook hooks list charge qualitygate dedupq).
# Raw outputs go to test/bench/results/<UTC time>/ (gitignored), the summary
# to summary.md there. Only loopback; every database it creates is dropped and
# every process it starts is stopped on exit. Targets are reported, never
# asserted: the exit status is 0 unless a step fails to run.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$(pwd)

export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
SECS=${BENCH_SECONDS:-10}
WRK_DURATION=${WRK_DURATION:-15s}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-32}
REBUILD_EVENTS=${REBUILD_EVENTS:-1000000}
REBUILD_ORGS=${REBUILD_ORGS:-10000}
PORT=${BENCH_PORT:-18090}
PACED_RPS=${PACED_RPS:-5000}
PLAN_ORGS=${PLAN_ORGS:-300}
REBUILD_ALL_BUDGET=${REBUILD_ALL_BUDGET:-150}
EXEC_WORKFLOWS=${EXEC_WORKFLOWS:-100}
EXEC_SEQUENTIAL=${EXEC_SEQUENTIAL:-20}
PUSH_IDLE=${PUSH_IDLE:-30}
PUSH_RATE=${PUSH_RATE:-1000}
PUSH_SECONDS=${PUSH_SECONDS:-10}
SKIP=" ${BENCH_SKIP:-} "
CHUNK=100000

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$ROOT/test/bench/results/$STAMP
mkdir -p "$OUT"
ln -sfn "$STAMP" "$ROOT/test/bench/results/latest"
WORK=$(mktemp -d)

DB_PGBENCH=svc_bench_pgbench_$$
DB_LEDGER=svc_bench_ledger_$$
DB_HTTP=svc_bench_http_$$
DB_EXEC=svc_bench_exec_$$
DB_PUSH=svc_bench_push_$$
DB_HOOK=svc_bench_webhook_$$
DB_HOOKS=svc_bench_hooks_$$
url() { echo "postgres://$PGUSER@$PGHOST:$PGPORT/$1?sslmode=disable"; }
psqlq() { psql -X -v ON_ERROR_STOP=1 -q "$@"; }

SERVE_PID=""
TEST_PIDS=()
cleanup() {
	local rc=$?
	set +e
	if [[ -n $SERVE_PID ]] && kill -0 "$SERVE_PID" 2>/dev/null; then
		kill -TERM "$SERVE_PID"
		for _ in $(seq 50); do kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$SERVE_PID" 2>/dev/null
	fi
	for pid in "${TEST_PIDS[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; fi
		# a test binary killed before its TestMain cleanup leaves its pgtest database
		for name in eventstore projections commands; do
			psqlq -d postgres -c "DROP DATABASE IF EXISTS svc_test_${name}_${pid} WITH (FORCE)" 2>/dev/null
		done
	done
	for db in "$DB_PGBENCH" "$DB_LEDGER" "$DB_HTTP" "$DB_EXEC" "$DB_PUSH" "$DB_HOOK" "$DB_HOOKS"; do
		psqlq -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" 2>/dev/null
	done
	rm -rf "$WORK"
	if [[ $rc -ne 0 ]]; then echo "bench: FAILED (exit $rc); raw outputs in $OUT" >&2; fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$OUT/run.log" >&2; }
skip() { [[ $SKIP == *" $1 "* ]]; }

# ---------------------------------------------------------------- tools
if ! command -v wrk >/dev/null; then
	log "installing wrk"
	SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
	$SUDO apt-get update -qq >/dev/null && $SUDO apt-get install -y -qq wrk >/dev/null
fi
for tool in psql pgbench wrk curl jq go; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is required" >&2; exit 1; }
done
if [[ ! -x bin/svc ]]; then
	log "building bin/svc"
	go build -o bin/svc ./cmd/svc
fi
log "compiling benchmark binaries"
go test -c -o "$WORK/eventstore.test" ./eventstore
go test -c -o "$WORK/projections.test" ./projections

# ---------------------------------------------------------------- machine
{
	echo "date:               $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit:             $(git describe --always --dirty 2>/dev/null || echo unknown)"
	echo "cpus:               $(nproc)"
	echo "cpu model:          $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "memory:             $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "kernel:             $(uname -r)"
	echo "go:                 $(go version | cut -d' ' -f3-)"
	echo "postgresql:         $(psql -X -Atc 'SHOW server_version' -d postgres)"
	for s in fsync synchronous_commit wal_sync_method full_page_writes shared_buffers max_connections; do
		printf '%-19s %s\n' "$s:" "$(psql -X -Atc "SHOW $s" -d postgres)"
	done
	echo "wrk:                $(wrk -v 2>&1 | head -1)"
	echo "load average:       $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"
cat "$OUT/machine.txt" >&2

# Other work on the server skews every figure, and a transaction left open
# anywhere on it holds back both readers (ReadAll stops below its xid) and the
# pruning of dead row versions. Wait a little for them to end, then go on
# with a warning.
others() {
	psql -X -Atc "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'
		AND pid <> pg_backend_pid() AND (state <> 'idle' OR xact_start IS NOT NULL)" -d postgres
}
for _ in $(seq 30); do [[ $(others) -eq 0 ]] && break; sleep 1; done
if [[ $(others) -ne 0 ]]; then
	log "WARNING: other sessions are busy or hold transactions on the server; figures will be skewed"
	psql -X -c "SELECT pid, datname, state, now() - xact_start AS xact_age, left(query, 60) AS query
		FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
		AND (state <> 'idle' OR xact_start IS NOT NULL)" -d postgres | tee "$OUT/other-sessions.txt" >&2
fi

# results: name|ours|baseline|ratio|target|pass
RESULTS=$OUT/results.psv
: >"$RESULTS"
result() { echo "$1|$2|$3|$4|$5|$6" >>"$RESULTS"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? "PASS" : "FAIL" }'; }
# benchmetric FILE NAME_REGEX UNIT: the value before UNIT on the benchmark's line
benchmetric() {
	awk -v name="$2" -v unit="$3" '$1 ~ name { for (i = 2; i <= NF; i++) if ($i == unit) { print $(i-1); exit } }' "$1"
}
# runtest BINARY OUTFILE ARGS...: runs a Go test binary in the background so
# that cleanup knows its pid (and so its pgtest database name).
runtest() {
	local bin=$1 out=$2
	shift 2
	"$bin" "$@" >"$out" 2>&1 &
	local pid=$!
	TEST_PIDS+=("$pid")
	wait "$pid" || { cat "$out" >&2; return 1; }
}

# ---------------------------------------------------------------- 1. appends
if ! skip append; then
	psqlq -d postgres -c "CREATE DATABASE $DB_PGBENCH"
	psqlq -d "$DB_PGBENCH" -c "CREATE TABLE bench_rows (id bigserial PRIMARY KEY, data jsonb NOT NULL)"
	# One row per transaction, its JSON (a charge like the events the Go
	# benchmark appends) sent as a parameter of a prepared statement, as pgx does.
	echo 'INSERT INTO bench_rows (data) VALUES (:data);' >"$OUT/pgbench-insert.sql"
	row='{"org_id":"0b7c6f1e-3f4a-4c3e-9a51-2f0d6f4c9b1a","amount":17,"reason":"workflow_step","workflow_id":"wr_3f2a_1","step":1,"key_id":"0b7c6f1e-3f4a-4c3e-9a51-2f0d6f4c9b1a","agent_id":"agent_1"}'
	for c in 1 8 32; do
		j=$((c < 2 ? c : 2))
		psqlq -d "$DB_PGBENCH" -c "TRUNCATE bench_rows RESTART IDENTITY"
		log "pgbench single-row insert, c=$c"
		pgbench -n -M prepared -c "$c" -j "$j" -T "$SECS" -D "data=$row" -f "$OUT/pgbench-insert.sql" "$DB_PGBENCH" >"$OUT/pgbench-insert-c$c.txt" 2>&1
		pg=$(awk '/^tps = / { printf "%.0f", $3; exit }' "$OUT/pgbench-insert-c$c.txt")
		log "  pgbench: $pg tps; Store.Append one event per call, c=$c"
		runtest "$WORK/eventstore.test" "$OUT/go-append-c$c.txt" -test.run '^$' \
			-test.bench "^BenchmarkAppend\$/^c=$c\$" -test.benchtime "${SECS}s" -test.timeout 10m
		ours=$(benchmetric "$OUT/go-append-c$c.txt" "^BenchmarkAppend/c=$c(-[0-9]+)?\$" events/s)
		p99=$(benchmetric "$OUT/go-append-c$c.txt" "^BenchmarkAppend/c=$c(-[0-9]+)?\$" p99-ms)
		r=$(ratio "$ours" "$pg")
		log "  ours: $ours events/s (p99 $p99 ms), ratio $r"
		result "append 1 event/call, c=$c (events/s)" "$ours" "pgbench insert $pg tps" "$r" "ratio >= 0.8" "$(atleast "$r" 0.8)"
	done
	psqlq -d postgres -c "DROP DATABASE IF EXISTS $DB_PGBENCH WITH (FORCE)"
fi

# ---------------------------------------------------------------- 2. batches
if ! skip batch; then
	log "Store.Append 100 events per call, c=1 and c=4"
	runtest "$WORK/eventstore.test" "$OUT/go-append-batch.txt" -test.run '^$' \
		-test.bench '^BenchmarkAppendBatch$' -test.benchtime "${SECS}s" -test.timeout 10m
	for c in 1 4; do
		ours=$(benchmetric "$OUT/go-append-batch.txt" "^BenchmarkAppendBatch/size=100/c=$c(-[0-9]+)?\$" events/s)
		log "  c=$c: $ours events/s"
		result "append 100 events/call, c=$c (events/s)" "$ours" "-" "-" ">= 20000" "$(atleast "$ours" 20000)"
	done
fi

# ---------------------------------------------------------------- 3. rebuild
if ! skip rebuild; then
	export DATABASE_URL
	DATABASE_URL=$(url "$DB_LEDGER")
	bin/svc migrate >"$OUT/ledger-migrate.txt" 2>&1
	log "generating $REBUILD_EVENTS ledger events for $REBUILD_ORGS orgs"
	{
		echo "PREPARE gen(bigint, bigint, bigint) AS"
		grep -v '^--' test/bench/ledger.sql
		echo ";"
		echo '\timing on'
		for ((from = 0; from < REBUILD_EVENTS; from += CHUNK)); do
			to=$((from + CHUNK < REBUILD_EVENTS ? from + CHUNK : REBUILD_EVENTS))
			echo "EXECUTE gen($REBUILD_ORGS, $from, $to);"
		done
		echo "VACUUM (ANALYZE) events;"
		echo "SELECT count(*) AS events, pg_size_pretty(pg_total_relation_size('events')) AS size FROM events;"
	} | psqlq -d "$DB_LEDGER" >"$OUT/ledger-generate.txt" 2>&1
	gen_ms=$(awk '/^Time: / { s += $2 } END { printf "%.0f", s }' "$OUT/ledger-generate.txt")
	log "  generated in $((gen_ms / 1000)) s"

	log "svc projections rebuild billing"
	bin/svc projections rebuild billing >"$OUT/rebuild-billing.txt" 2>"$OUT/rebuild-billing.stderr"
	cat "$OUT/rebuild-billing.txt" >&2
	billing=$(sed -n 's/^billing: rebuilt from \([0-9]*\) events in .* (\([0-9]*\) events\/s)$/\2/p' "$OUT/rebuild-billing.txt")
	applied=$(sed -n 's/^billing: rebuilt from \([0-9]*\) events.*/\1/p' "$OUT/rebuild-billing.txt")
	result "rebuild billing over $applied events (events/s)" "$billing" "-" "-" ">= 50000" "$(atleast "$billing" 50000)"

	# Every projection reads the whole log, so --all takes about four times
	# as long as billing alone: run it only when that fits the budget.
	secs=$(sed -n 's/^billing: rebuilt from .* events in \([0-9.]*\)s .*/\1/p' "$OUT/rebuild-billing.txt")
	if awk -v s="$secs" -v b="$REBUILD_ALL_BUDGET" 'BEGIN { exit !(4 * s <= b) }'; then
		log "svc projections rebuild --all"
		bin/svc projections rebuild --all >"$OUT/rebuild-all.txt" 2>"$OUT/rebuild-all.stderr"
		cat "$OUT/rebuild-all.txt" >&2
		while read -r name rest; do
			n=$(sed -n 's/.*(\([0-9]*\) events\/s)$/\1/p' <<<"$rest")
			result "rebuild ${name%:} (of --all) (events/s)" "$n" "-" "-" "(info)" "-"
		done <"$OUT/rebuild-all.txt"
	else
		log "skipping rebuild --all: about $(awk -v s="$secs" 'BEGIN { printf "%.0f", 4 * s }') s expected, budget ${REBUILD_ALL_BUDGET} s (REBUILD_ALL_BUDGET)"
		result "rebuild --all" "skipped" "-" "-" "(info)" "-"
	fi

	replay_ok=0 replay_n=0
	for o in 0 1 $((REBUILD_ORGS / 2)) $((REBUILD_ORGS - 1)); do
		org=$(psql -X -Atc "SELECT md5('svc-bench-org-$o')::uuid" -d "$DB_LEDGER")
		replay_n=$((replay_n + 1))
		if bin/svc replay billing --org "$org" >"$OUT/replay-org$o.txt" 2>&1; then
			replay_ok=$((replay_ok + 1))
		fi
		sed "s/^/  /" "$OUT/replay-org$o.txt" >&2
	done
	result "svc replay billing agrees (orgs)" "$replay_ok/$replay_n" "-" "-" "all" "$([[ $replay_ok -eq $replay_n ]] && echo PASS || echo FAIL)"
	bin/svc projections list >"$OUT/projections-list.txt" 2>&1 || true
	unset DATABASE_URL
	psqlq -d postgres -c "DROP DATABASE IF EXISTS $DB_LEDGER WITH (FORCE)"
fi

# ---------------------------------------------------------------- 4. HTTP
if ! skip http; then
	if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then
		echo "bench: port $PORT is in use (set BENCH_PORT)" >&2
		exit 1
	fi
	log "svc serve on 127.0.0.1:$PORT (fresh database)"
	DATABASE_URL=$(url "$DB_HTTP") SVC_ADDR=127.0.0.1:$PORT SVC_LOG_LEVEL=info REDIS_URL= SVC_SMTP_URL= SVC_TRUSTED_PROXIES=127.0.0.1/32 \
		bin/svc serve >"$OUT/serve.stdout" 2>"$OUT/serve.log" &
	SERVE_PID=$!
	base=http://127.0.0.1:$PORT
	for _ in $(seq 100); do
		curl -fs -o /dev/null "$base/api/health" && break
		kill -0 "$SERVE_PID" 2>/dev/null || { cat "$OUT/serve.log" >&2; exit 1; }
		sleep 0.2
	done
	curl -fsS -X POST "$base/api/keys" -H 'content-type: application/json' \
		-d '{"email":"bench@example.com","name":"Bench"}' >"$OUT/signup.json"
	key=$(jq -r .key "$OUT/signup.json")
	curl -fsS "$base/api/billing/balance" -H "x-api-key: $key" >"$OUT/balance.json"
	log "  signed up org $(jq -r .org_id "$OUT/signup.json"); balance $(jq -r .balance "$OUT/balance.json")"

	# wrk prints its own report; done() adds one parsable line.
	cat >"$WORK/report.lua" <<-'EOF'
	done = function(summary, latency, requests)
		local e = summary.errors
		io.write(string.format("RESULT requests=%d seconds=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f p999_ms=%.3f max_ms=%.3f errors=%d non2xx=%d\n",
			summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
			latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
			latency:percentile(99.9) / 1000, latency.max / 1000,
			e.connect + e.read + e.write + e.timeout, e.status))
	end
	EOF
	{ printf 'wrk.headers["x-api-key"] = "%s"\n' "$key"; cat "$WORK/report.lua"; } >"$WORK/balance.lua"
	field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1"; }

	log "wrk warm-up (3 s)"
	wrk -t2 -c"$WRK_CONNECTIONS" -d3s -s "$WORK/balance.lua" "$base/api/billing/balance" >"$OUT/wrk-warmup.txt" 2>&1
	log "wrk GET /api/billing/balance -t2 -c$WRK_CONNECTIONS -d$WRK_DURATION"
	wrk -t2 -c"$WRK_CONNECTIONS" -d"$WRK_DURATION" --latency -s "$WORK/balance.lua" "$base/api/billing/balance" >"$OUT/wrk-balance.txt" 2>&1
	# wrk has no fixed rate; a per-connection pause before each request holds
	# the offered load near PACED_RPS, to read the latency at the target load
	# rather than at saturation.
	pause=$(awk -v c="$WRK_CONNECTIONS" -v r="$PACED_RPS" 'BEGIN { d = c / r * 1000 - 1; printf "%.2f", (d > 0 ? d : 0) }')
	{ printf 'wrk.headers["x-api-key"] = "%s"\ndelay = function() return %s end\n' "$key" "$pause"; cat "$WORK/report.lua"; } >"$WORK/paced.lua"
	log "wrk GET /api/billing/balance paced near $PACED_RPS req/s (pause ${pause} ms per connection) -t2 -c$WRK_CONNECTIONS -d$WRK_DURATION"
	wrk -t2 -c"$WRK_CONNECTIONS" -d"$WRK_DURATION" --latency -s "$WORK/paced.lua" "$base/api/billing/balance" >"$OUT/wrk-balance-paced.txt" 2>&1
	log "wrk same route without a key (401, no database read) -t2 -c$WRK_CONNECTIONS -d$WRK_DURATION"
	wrk -t2 -c"$WRK_CONNECTIONS" -d"$WRK_DURATION" --latency -s "$WORK/report.lua" "$base/api/billing/balance" >"$OUT/wrk-nokey.txt" 2>&1

	# POST /api/rigor/plan (classify, build, persist): each org may plan 120
	# times a minute, so the load spreads over PLAN_ORGS orgs (signed up from
	# distinct X-Forwarded-For addresses; serve trusts loopback as a proxy).
	log "signing up $PLAN_ORGS orgs for the plan benchmark"
	{
		echo "keys = {"
		for i in $(seq "$PLAN_ORGS"); do
			k=$(curl -fsS -X POST "$base/api/keys" -H "X-Forwarded-For: 10.77.$((i / 250)).$((i % 250 + 1))" | jq -r .key)
			printf '  "%s",\n' "$k"
		done
		echo "}"
		cat <<-'EOF'
		local body = '{"task_description":"compare our pricing with three competitors for the board","preferences":{"rigor_level":"standard"}}'
		local n = 0
		request = function()
			n = n + 1
			return wrk.format("POST", nil, {["x-api-key"] = keys[(n % #keys) + 1], ["content-type"] = "application/json"}, body)
		end
		EOF
		cat "$WORK/report.lua"
	} >"$WORK/plan.lua"
	log "wrk POST /api/rigor/plan -t2 -c$WRK_CONNECTIONS -d$WRK_DURATION"
	wrk -t2 -c"$WRK_CONNECTIONS" -d"$WRK_DURATION" --latency -s "$WORK/plan.lua" "$base/api/rigor/plan" >"$OUT/wrk-plan.txt" 2>&1
	# latency at light load (2 connections): at saturation p50 is just
	# connections / throughput, queueing rather than work
	log "wrk POST /api/rigor/plan -t2 -c2 -d$WRK_DURATION (latency at light load)"
	wrk -t2 -c2 -d"$WRK_DURATION" --latency -s "$WORK/plan.lua" "$base/api/rigor/plan" >"$OUT/wrk-plan-c2.txt" 2>&1
	log "wrk GET /api/health (same-run baseline) -t2 -c$WRK_CONNECTIONS -d$WRK_DURATION, and -c2"
	wrk -t2 -c"$WRK_CONNECTIONS" -d"$WRK_DURATION" --latency -s "$WORK/report.lua" "$base/api/health" >"$OUT/wrk-health.txt" 2>&1
	wrk -t2 -c2 -d"$WRK_DURATION" --latency -s "$WORK/report.lua" "$base/api/health" >"$OUT/wrk-health-c2.txt" 2>&1
	kill -TERM "$SERVE_PID"
	wait "$SERVE_PID" || true
	SERVE_PID=""

	plrps=$(field "$OUT/wrk-plan.txt" rps) plp99=$(field "$OUT/wrk-plan.txt" p99_ms)
	plbad=$(( $(field "$OUT/wrk-plan.txt" non2xx) + $(field "$OUT/wrk-plan.txt" errors) + $(field "$OUT/wrk-plan-c2.txt" non2xx) + $(field "$OUT/wrk-plan-c2.txt" errors) ))
	plp50=$(field "$OUT/wrk-plan-c2.txt" p50_ms) plrps2=$(field "$OUT/wrk-plan-c2.txt" rps)
	hrps=$(field "$OUT/wrk-health.txt" rps) hp50=$(field "$OUT/wrk-health-c2.txt" p50_ms)
	log "  plan: $plrps plans/s at c=$WRK_CONNECTIONS (p99 $plp99 ms); p50 $plp50 ms at c=2 ($plrps2 plans/s); failed $plbad; health: $hrps req/s, p50 $hp50 ms at c=2"
	result "POST /api/rigor/plan, wrk -c$WRK_CONNECTIONS (plans/s)" "$plrps" "GET /api/health: $hrps req/s" "$(ratio "$plrps" "$hrps")" ">= 1000 plans/s" "$(atleast "$plrps" 1000)"
	result "  same at -c2: p50 latency (ms)" "$plp50" "GET /api/health -c2 p50: $hp50 ms" "-" "< 5 ms" "$(awk -v p="$plp50" -v b="$plbad" 'BEGIN { print (p < 5 && b == 0) ? "PASS" : "FAIL" }')"

	rps=$(field "$OUT/wrk-balance.txt" rps) p99=$(field "$OUT/wrk-balance.txt" p99_ms)
	p50=$(field "$OUT/wrk-balance.txt" p50_ms) bad=$(field "$OUT/wrk-balance.txt" non2xx)
	err=$(field "$OUT/wrk-balance.txt" errors)
	prps=$(field "$OUT/wrk-balance-paced.txt" rps) pp99=$(field "$OUT/wrk-balance-paced.txt" p99_ms)
	pbad=$(( $(field "$OUT/wrk-balance-paced.txt" non2xx) + $(field "$OUT/wrk-balance-paced.txt" errors) ))
	log "  balance paced: $prps req/s, p99 $pp99 ms, failed $pbad"
	nrps=$(field "$OUT/wrk-nokey.txt" rps) np99=$(field "$OUT/wrk-nokey.txt" p99_ms)
	log "  balance: $rps req/s, p50 $p50 ms, p99 $p99 ms, non-2xx $bad, socket errors $err; without key: $nrps req/s, p99 $np99 ms"

	log "pgbench -S (select-only) -c$WRK_CONNECTIONS -j2 -T$SECS, scale 10"
	psqlq -d postgres -c "CREATE DATABASE $DB_PGBENCH"
	pgbench -i -q -s 10 "$DB_PGBENCH" >"$OUT/pgbench-init.txt" 2>&1
	pgbench -n -S -M prepared -c "$WRK_CONNECTIONS" -j 2 -T "$SECS" "$DB_PGBENCH" >"$OUT/pgbench-select.txt" 2>&1
	psqlq -d postgres -c "DROP DATABASE IF EXISTS $DB_PGBENCH WITH (FORCE)"
	sel=$(awk '/^tps = / { printf "%.0f", $3; exit }' "$OUT/pgbench-select.txt")
	log "  pgbench -S: $sel tps"

	ok=$(awk -v r="$rps" -v p="$p99" -v b="$bad" -v e="$err" 'BEGIN { print (r >= 5000 && p < 10 && b == 0 && e == 0) ? "PASS" : "FAIL" }')
	result "GET /api/billing/balance, wrk -c$WRK_CONNECTIONS (req/s)" "$rps" "no-key 401: $nrps req/s" "$(ratio "$rps" "$nrps")" ">= 5000 req/s" "$(atleast "$rps" 5000)"
	result "  same, p99 latency (ms)" "$p99" "no-key 401: $np99 ms" "-" "< 10 ms" "$(awk -v p="$p99" 'BEGIN { print (p < 10) ? "PASS" : "FAIL" }')"
	result "  paced near $PACED_RPS req/s: p99 latency (ms)" "$pp99" "at $prps req/s" "-" "< 10 ms" "$(awk -v p="$pp99" -v b="$pbad" 'BEGIN { print (p < 10 && b == 0) ? "PASS" : "FAIL" }')"
	result "  same, vs pgbench -S -c$WRK_CONNECTIONS (tps)" "$rps" "pgbench -S $sel tps" "$(ratio "$rps" "$sel")" "(info)" "-"
	result "  same, overall (>= 5000 req/s, p99 < 10 ms, all 200)" "-" "-" "-" "all" "$ok"
fi

# ---------------------------------------------------------------- 5. execution
# Workflows against an LLM that answers at once (the fake OpenAI-compatible
# server of test/fakellm): the orchestration overhead per step (run time
# less LLM call time, per step, from the event log), first one workflow at a
# time, then EXEC_WORKFLOWS at once; every workflow must complete.
if ! skip exec; then
	LLM_PORT=$((PORT + 1))
	go build -o "$WORK/fakellm" ./test/fakellm/cmd/fakellm
	go build -o "$WORK/execload" ./test/bench/execload
	"$WORK/fakellm" -addr "127.0.0.1:$LLM_PORT" >"$OUT/fakellm.log" 2>&1 &
	TEST_PIDS+=($!)
	log "svc serve on 127.0.0.1:$PORT with the fake LLM on :$LLM_PORT, SVC_WORKERS=$EXEC_WORKFLOWS (fresh database)"
	export_exec() { DATABASE_URL=$(url "$DB_EXEC") "$@"; }
	DATABASE_URL=$(url "$DB_EXEC") SVC_ADDR=127.0.0.1:$PORT SVC_LOG_LEVEL=warn REDIS_URL= SVC_SMTP_URL= \
		SVC_LLM_BASE_URL=http://127.0.0.1:$LLM_PORT SVC_WORKERS=$EXEC_WORKFLOWS \
		bin/svc serve >"$OUT/serve-exec.stdout" 2>"$OUT/serve-exec.log" &
	SERVE_PID=$!
	base=http://127.0.0.1:$PORT
	for _ in $(seq 100); do
		curl -fs -o /dev/null "$base/api/health" && break
		kill -0 "$SERVE_PID" 2>/dev/null || { cat "$OUT/serve-exec.log" >&2; exit 1; }
		sleep 0.2
	done
	curl -fsS -X POST "$base/api/keys" -H 'content-type: application/json' -d '{"name":"Exec bench"}' >"$OUT/exec-signup.json"
	key=$(jq -r .key "$OUT/exec-signup.json") org=$(jq -r .org_id "$OUT/exec-signup.json")
	export_exec bin/svc org set-tier --org "$org" --tier enterprise >/dev/null
	export_exec bin/svc credits grant --org "$org" --credits 100000000 --reason "benchmark" >/dev/null
	for _ in $(seq 150); do # the key cache is emptied once the read model has the tier
		[[ $(curl -fsS "$base/api/keys/verify" -H "x-api-key: $key" | jq -r .is_paid) == true ]] && break
		sleep 0.1
	done
	log "execload: $EXEC_SEQUENTIAL workflows one at a time"
	"$WORK/execload" -base "$base" -key "$key" -db "$(url "$DB_EXEC")" -n "$EXEC_SEQUENTIAL" -c 1 >"$OUT/exec-c1.json"
	log "execload: $EXEC_WORKFLOWS workflows at once"
	"$WORK/execload" -base "$base" -key "$key" -db "$(url "$DB_EXEC")" -n "$EXEC_WORKFLOWS" -c "$EXEC_WORKFLOWS" >"$OUT/exec-c100.json"
	export_exec bin/svc replay billing --org "$org" >"$OUT/exec-replay.txt" 2>&1 && replay=agrees || replay=DIFFERS
	kill -TERM "$SERVE_PID"
	wait "$SERVE_PID" || true
	SERVE_PID=""

	o1=$(jq -r .overhead_per_step_p50_ms "$OUT/exec-c1.json") l1=$(jq -r .llm_call_per_step_mean_ms "$OUT/exec-c1.json")
	o100=$(jq -r .overhead_per_step_p50_ms "$OUT/exec-c100.json") o100p95=$(jq -r .overhead_per_step_p95_ms "$OUT/exec-c100.json")
	l100=$(jq -r .llm_call_per_step_mean_ms "$OUT/exec-c100.json")
	done100=$(jq -r '.statuses.completed // 0' "$OUT/exec-c100.json") bad100=$(jq -r .execute_errors "$OUT/exec-c100.json")
	wall=$(jq -r .wall_seconds "$OUT/exec-c100.json")
	# steps/s from the log: first WorkflowStarted to last terminal event (the
	# clients' status polling, every EXEC_WORKFLOWS x 20 ms, is not in it)
	sps100=$(jq -r .steps_per_second "$OUT/exec-c100.json") run100=$(jq -r .run_seconds "$OUT/exec-c100.json")
	log "  one at a time: overhead p50 $o1 ms/step (LLM call $l1 ms); $EXEC_WORKFLOWS at once: $done100 completed, $bad100 execute errors, overhead p50 $o100 ms/step p95 $o100p95 ms (LLM $l100 ms), $sps100 steps/s over ${run100}s, wall ${wall}s; replay billing $replay"
	result "orchestration overhead per step, 1 workflow at a time (ms, p50)" "$o1" "fake LLM call: $l1 ms/step" "$(ratio "$o1" "$l1")" "< 3 ms" "$(awk -v o="$o1" 'BEGIN { print (o < 3) ? "PASS" : "FAIL" }')"
	result "$EXEC_WORKFLOWS concurrent workflows: completed without error" "$done100/$EXEC_WORKFLOWS" "execute errors: $bad100; replay billing $replay" "-" "all" "$(awk -v d="$done100" -v n="$EXEC_WORKFLOWS" -v b="$bad100" -v r="$replay" 'BEGIN { print (d == n && b == 0 && r == "agrees") ? "PASS" : "FAIL" }')"
	result "  same, steps per second (log: first start to last end)" "$sps100" "$(jq -r .steps "$OUT/exec-c100.json") steps in ${run100}s; wall ${wall}s" "-" ">= 1000" "$(atleast "$sps100" 1000)"
	result "  same, overhead per step under that load (ms, p50 / p95)" "$o100 / $o100p95" "fake LLM call: $l100 ms/step" "$(ratio "$o100" "$l100")" "(info)" "-"
fi

# ---------------------------------------------------------------- 5b. push
# A fresh svc serve left idle: the statements it sends to PostgreSQL per
# second (its svc_db_statements_total; the database's transactions as a
# cross-check); then organizations created at PUSH_RATE/s by another
# process announcing its commits, each timed from its commit until the
# organizations read model holds it (test/bench/pushload).
if ! skip push; then
	go build -o "$WORK/pushload" ./test/bench/pushload
	if [[ -n $SERVE_PID ]] && kill -0 "$SERVE_PID" 2>/dev/null; then
		kill -TERM "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true
	fi
	log "svc serve on 127.0.0.1:$PORT (fresh database): idle ${PUSH_IDLE}s, then $PUSH_RATE appends/s for ${PUSH_SECONDS}s"
	DATABASE_URL=$(url "$DB_PUSH") SVC_ADDR=127.0.0.1:$PORT SVC_LOG_LEVEL=warn REDIS_URL= SVC_SMTP_URL= \
		bin/svc serve >"$OUT/serve-push.stdout" 2>"$OUT/serve-push.log" &
	SERVE_PID=$!
	for _ in $(seq 100); do
		curl -fs -o /dev/null "http://127.0.0.1:$PORT/api/health" && break
		kill -0 "$SERVE_PID" 2>/dev/null || { cat "$OUT/serve-push.log" >&2; exit 1; }
		sleep 0.2
	done
	sleep 5 # start-up's own work (first looks, autovacuum of the new tables) is not idleness
	"$WORK/pushload" -db "$(url "$DB_PUSH")" -metrics "http://127.0.0.1:$PORT/metrics" \
		-idle "${PUSH_IDLE}s" -rate "$PUSH_RATE" -duration "${PUSH_SECONDS}s" >"$OUT/push.json"
	idle=$(jq -r '.idle_statements_per_second | . * 100 | round / 100' "$OUT/push.json")
	idlex=$(jq -r '.idle_db_transactions_per_second | . * 100 | round / 100' "$OUT/push.json")
	p50=$(jq -r .visible_p50_ms "$OUT/push.json") p99=$(jq -r .visible_p99_ms "$OUT/push.json")
	achieved=$(jq -r '.achieved_rate | round' "$OUT/push.json") lost=$(jq -r .not_visible "$OUT/push.json")
	log "  idle: $idle statements/s ($idlex db transactions/s); at $achieved appends/s: visible p50 $p50 ms, p99 $p99 ms, $lost never visible"
	result "idle instance: statements to PostgreSQL per second" "$idle" "db transactions/s (all clients): $idlex" "-" "< 1" "$(awk -v a="$idle" 'BEGIN { print (a >= 0 && a < 1) ? "PASS" : "FAIL" }')"
	result "append to read model visible, p99 at $achieved appends/s (ms)" "$p99" "p50 $p50 ms; never visible: $lost" "-" "< 20 ms" "$(awk -v a="$p99" -v l="$lost" 'BEGIN { print (a < 20 && l == 0) ? "PASS" : "FAIL" }')"
fi

# ---------------------------------------------------------------- 5c. webhook
# POST /api/billing/webhook: WEBHOOK_EVENTS signed credit purchases over
# 50 organizations at WEBHOOK_CONCURRENCY, each answered once its grant is
# in the read models; the baseline is the same requests with a wrong
# signature (HTTP and the signature check, no database work), in the same
# run. Every event is then delivered again and must grant nothing more
# (test/bench/webhookload).
if ! skip webhook; then
	go build -o "$WORK/webhookload" ./test/bench/webhookload
	if [[ -n $SERVE_PID ]] && kill -0 "$SERVE_PID" 2>/dev/null; then
		kill -TERM "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true
	fi
	log "svc serve on 127.0.0.1:$PORT (fresh database): ${WEBHOOK_EVENTS:-2000} signed purchases at concurrency ${WEBHOOK_CONCURRENCY:-16}, then each again"
	DATABASE_URL=$(url "$DB_HOOK") SVC_ADDR=127.0.0.1:$PORT SVC_LOG_LEVEL=warn REDIS_URL= SVC_SMTP_URL= \
		STRIPE_SECRET_KEY=sk_test_bench STRIPE_WEBHOOK_SECRET=whsec_bench STRIPE_API_BASE=http://127.0.0.1:9 \
		bin/svc serve >"$OUT/serve-webhook.stdout" 2>"$OUT/serve-webhook.log" &
	SERVE_PID=$!
	for _ in $(seq 100); do
		curl -fs -o /dev/null "http://127.0.0.1:$PORT/api/health" && break
		kill -0 "$SERVE_PID" 2>/dev/null || { cat "$OUT/serve-webhook.log" >&2; exit 1; }
		sleep 0.2
	done
	"$WORK/webhookload" -base "http://127.0.0.1:$PORT" -db "$(url "$DB_HOOK")" -secret whsec_bench \
		-events "${WEBHOOK_EVENTS:-2000}" -c "${WEBHOOK_CONCURRENCY:-16}" >"$OUT/webhook.json"
	wr=$(jq -r '.events_per_second | round' "$OUT/webhook.json") wp50=$(jq -r .p50_ms "$OUT/webhook.json") wp99=$(jq -r .p99_ms "$OUT/webhook.json")
	br=$(jq -r '.refused_per_second | round' "$OUT/webhook.json") once=$(jq -r .granted_once "$OUT/webhook.json")
	werr=$(jq -r .errors "$OUT/webhook.json") again=$(jq -r .redelivered_ok "$OUT/webhook.json")
	log "  $wr purchases/s (p50 $wp50 ms, p99 $wp99 ms, $werr errors); refused for their signature: $br/s; redelivered answered 200: $again; granted once: $once"
	result "webhook: signed purchases handled per second (c=${WEBHOOK_CONCURRENCY:-16})" "$wr" "bad signatures refused: $br/s" "$(ratio "$wr" "$br")" "(info)" "-"
	result "  same, p50 / p99 (ms); each granted once after redelivery" "$wp50 / $wp99" "errors: $werr; redelivered 200: $again" "-" "once" "$([[ $once == true && $werr == 0 ]] && echo PASS || echo FAIL)"
fi

# ---------------------------------------------------------------- 5d. hooks
# Outbound webhook deliveries through svc serve's delivery engine
# (test/bench/endpointload, which starts its own svc serve on a fresh
# database and a local HTTPS receiver trusted through
# SVC_OUTBOUND_CA_FILE): step_completed events of 100 workflows offered at
# HOOK_RATE a second for HOOK_SECONDS, first to the workflows' own webhooks
# (spec A: the baseline), then to a workspace endpoint subscribed to them
# (spec B); the time from each event's commit to its first attempt's
# arrival, and the deliveries arriving per second.
if ! skip hooks; then
	go build -o "$WORK/endpointload" ./test/bench/endpointload
	if [[ -n $SERVE_PID ]] && kill -0 "$SERVE_PID" 2>/dev/null; then
		kill -TERM "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true
	fi
	log "webhook deliveries at ${HOOK_RATE:-1000}/s offered for ${HOOK_SECONDS:-10} s: workflows' own webhooks, then a workspace endpoint"
	"$WORK/endpointload" -svc bin/svc -db "$(url "$DB_HOOKS")" -port "$PORT" -rate "${HOOK_RATE:-1000}" -seconds "${HOOK_SECONDS:-10}" \
		-log "$OUT/serve-hooks.log" >"$OUT/hooks.json"
	for ph in baseline_workflow_webhooks workspace_endpoints; do
		hp50=$(jq -r ".$ph.p50_ms" "$OUT/hooks.json") hp99=$(jq -r ".$ph.p99_ms" "$OUT/hooks.json")
		hps=$(jq -r ".$ph.delivered_per_second" "$OUT/hooks.json") hbad=$(jq -r ".$ph.bad_signatures + .$ph.duplicates" "$OUT/hooks.json")
		log "  $ph: $hps delivered/s; commit to first attempt p50 $hp50 ms, p99 $hp99 ms; bad signatures and duplicates: $hbad"
	done
	ep50=$(jq -r .workspace_endpoints.p50_ms "$OUT/hooks.json") ep99=$(jq -r .workspace_endpoints.p99_ms "$OUT/hooks.json")
	eps=$(jq -r .workspace_endpoints.delivered_per_second "$OUT/hooks.json")
	bp50=$(jq -r .baseline_workflow_webhooks.p50_ms "$OUT/hooks.json") bp99=$(jq -r .baseline_workflow_webhooks.p99_ms "$OUT/hooks.json")
	bps=$(jq -r .baseline_workflow_webhooks.delivered_per_second "$OUT/hooks.json")
	result "hooks: endpoint deliveries/s at ${HOOK_RATE:-1000}/s offered" "$eps" "workflow webhooks: $bps/s" "$(ratio "$eps" "$bps")" ">= ${HOOK_RATE:-1000}" \
		"$(awk -v d="$eps" -v o="${HOOK_RATE:-1000}" 'BEGIN { print (d >= 0.95 * o) ? "PASS" : "FAIL" }')"
	result "  same, commit to first attempt p50 / p99 (ms)" "$ep50 / $ep99" "workflow webhooks: $bp50 / $bp99" \
		"$(jq -r '"\(.ratio_p50) / \(.ratio_p99)"' "$OUT/hooks.json")" "(info)" "-"
fi

# ---------------------------------------------------------------- 6. listing
# GET /api/rigor/workflows' query (page, total_count and active count in one
# snapshot) over a read model generated straight into the tables: one org
# holds a fifth of the workflows, 999 orgs share the rest. The cases the
# target names (plain first page, deep cursor page, status+task_type+q) are
# judged (on both orgs); the others are reported.
if ! skip list; then
	log "workflows listing over ${LIST_WORKFLOWS:-1000000} workflows (BenchmarkWorkflowList, ${LIST_SAMPLES:-500} samples per case)"
	SVC_BENCH_WORKFLOWS=${LIST_WORKFLOWS:-1000000} runtest "$WORK/projections.test" "$OUT/go-workflow-list.txt" -test.run '^$' \
		-test.bench '^BenchmarkWorkflowList$' -test.benchtime "${LIST_SAMPLES:-500}x" -test.timeout 30m -test.v
	grep -E '^BenchmarkWorkflowList/' "$OUT/go-workflow-list.txt" >&2
	for c in first-page deep-cursor status+task_type+q status q-two-terms q-common created_after; do
		for org in big typical; do
			re="^BenchmarkWorkflowList/${c//+/[+]}/org=$org(-[0-9]+)?\$"
			p99=$(benchmetric "$OUT/go-workflow-list.txt" "$re" p99-ms)
			[[ -n $p99 ]] || continue
			p50=$(benchmetric "$OUT/go-workflow-list.txt" "$re" p50-ms)
			total=$(benchmetric "$OUT/go-workflow-list.txt" "$re" total)
			case "$c/$org" in
			first-page/* | deep-cursor/* | status+task_type+q/*)
				result "list $c, org=$org ($total matches): p99 (ms)" "$p99" "p50 $p50 ms" "-" "< 50 ms" "$(awk -v p="$p99" 'BEGIN { print (p < 50) ? "PASS" : "FAIL" }')" ;;
			*) result "list $c, org=$org ($total matches): p99 (ms)" "$p99" "p50 $p50 ms" "-" "(info)" "-" ;;
			esac
		done
	done
fi

# ---------------------------------------------------------------- 7. charge
# A charge through a fresh commands.Repositories per iteration (a cold fold
# cache: a new process, another instance, an evicted entry) on a ledger of
# 10 events and on one of CHARGE_EVENTS, each kept at its length; the long
# one starts from its snapshot. Also reported: the worst case (the most
# events a cold load folds past a snapshot) and the long ledger without
# snapshots (folded from its start: one iteration is usually all there is).
if ! skip charge; then
	CHARGE_EVENTS=${CHARGE_EVENTS:-1000000}
	log "charge with a cold cache: ledgers of 10 and $CHARGE_EVENTS events (BenchmarkCharge)"
	go test -c -o "$WORK/commands.test" ./commands
	SVC_BENCH_CHARGE_EVENTS=$CHARGE_EVENTS runtest "$WORK/commands.test" "$OUT/go-charge.txt" -test.run '^$' \
		-test.bench '^BenchmarkCharge$' -test.benchtime "${SECS}s" -test.timeout 30m
	grep -E '^BenchmarkCharge/' "$OUT/go-charge.txt" >&2
	us() { awk -v n="$1" 'BEGIN { printf "%.0f", n / 1000 }'; }
	small=$(benchmetric "$OUT/go-charge.txt" '^BenchmarkCharge/events=10(-[0-9]+)?$' ns/op)
	large=$(benchmetric "$OUT/go-charge.txt" "^BenchmarkCharge/events=$CHARGE_EVENTS(-[0-9]+)?\$" ns/op)
	worst=$(benchmetric "$OUT/go-charge.txt" "^BenchmarkCharge/events=$CHARGE_EVENTS/tail=[0-9]+(-[0-9]+)?\$" ns/op)
	none=$(benchmetric "$OUT/go-charge.txt" "^BenchmarkCharge/events=$CHARGE_EVENTS/nosnapshot(-[0-9]+)?\$" ns/op)
	r=$(ratio "$large" "$small")
	log "  10 events: $(us "$small") µs; $CHARGE_EVENTS events: $(us "$large") µs (ratio $r); worst tail: $(us "$worst") µs; without snapshots: $(us "$none") µs"
	result "charge, cold cache, $CHARGE_EVENTS-event ledger (µs)" "$(us "$large")" "10-event ledger: $(us "$small") µs" "$r" "ratio <= 1.25" \
		"$(awk -v r="$r" 'BEGIN { print (r <= 1.25) ? "PASS" : "FAIL" }')"
	result "  same, worst case: a full snapshot interval to fold (µs)" "$(us "$worst")" "10-event ledger: $(us "$small") µs" "$(ratio "$worst" "$small")" "(info)" "-"
	result "  same, without snapshots (µs)" "$(us "$none")" "10-event ledger: $(us "$small") µs" "$(ratio "$none" "$small")" "(info)" "-"
fi

# ---------------------------------------------------------- 8. qualitygate
# QualityGate's pattern checks (ten directives of every type) on a 100 KB
# output, in process (BenchmarkPatternChecks100KB): p50 against 10 ms.
if ! skip qualitygate; then
	log "qualitygate pattern checks on a 100 KB output (BenchmarkPatternChecks100KB)"
	go test -c -o "$WORK/qualitygate.test" ./domain/qualitygate
	runtest "$WORK/qualitygate.test" "$OUT/go-qualitygate.txt" -test.run '^$' \
		-test.bench '^Benchmark(PatternChecks|Syntax)100KB' -test.benchtime "${SECS}s"
	grep -E '^Benchmark' "$OUT/go-qualitygate.txt" >&2
	p50=$(benchmetric "$OUT/go-qualitygate.txt" '^BenchmarkPatternChecks100KB(-[0-9]+)?$' p50-ms)
	result "qualitygate pattern checks, 100 KB output, p50 (ms)" "$p50" "-" "-" "p50 < 10 ms" \
		"$(awk -v p="$p50" 'BEGIN { print (p < 10) ? "PASS" : "FAIL" }')"
fi

# ---------------------------------------------------------------- 9. dedupq
# DedupQ checks through the whole HTTP stack of one test server, one request
# at a time, beside GET /api/health in the same run (TestSuiteDedupQBench):
# an exact check (db_exact: no Redis) and a semantic check over
# DEDUPQ_RESULTS (100,000) results of one organization.
if ! skip dedupq; then
	log "dedupq exact and semantic checks over ${DEDUPQ_RESULTS:-100000} results (TestSuiteDedupQBench)"
	SVC_BENCH_DEDUPQ=1 SVC_BENCH_DEDUPQ_RESULTS=${DEDUPQ_RESULTS:-100000} \
		go test ./http -run '^TestSuiteDedupQBench$' -count=1 -v -timeout 60m >"$OUT/go-dedupq.txt" 2>&1
	m() { awk -v k="$1" -v f="$2" '$1 == "metric" && $2 == k { print $f }' "$OUT/go-dedupq.txt"; }
	hp50=$(m health 3) ep50=$(m exact 3) sp99=$(m semantic 4)
	result "dedupq exact check p50 (ms)" "$ep50" "GET /api/health p50: $hp50 ms" "$(ratio "$ep50" "$hp50")" "p50 < 3 ms" \
		"$(awk -v p="$ep50" 'BEGIN { print (p < 3) ? "PASS" : "FAIL" }')"
	result "  a bare charge and its read-your-writes wait, p50 (ms)" "$(m charge 3)" "GET /api/health p50: $hp50 ms" \
		"$(ratio "$(m charge 3)" "$hp50")" "(info)" "-"
	result "dedupq semantic check over ${DEDUPQ_RESULTS:-100000} results p99 (ms)" "$sp99" "GET /api/health p99: $(m health 4) ms" \
		"$(ratio "$sp99" "$(m health 4)")" "p99 < 30 ms" "$(awk -v p="$sp99" 'BEGIN { print (p < 30) ? "PASS" : "FAIL" }')"
fi

# ---------------------------------------------------------------- summary
{
	echo "# Benchmark summary $STAMP"
	echo
	echo '```'
	cat "$OUT/machine.txt"
	echo '```'
	echo
	echo "| measure | ours | same-run baseline | ratio | target | result |"
	echo "| --- | ---: | --- | ---: | --- | --- |"
	while IFS='|' read -r name ours base r target pass; do
		echo "| $name | $ours | $base | $r | $target | $pass |"
	done <"$RESULTS"
} >"$OUT/summary.md"
echo
column -t -s '|' -N "MEASURE,OURS,BASELINE (SAME RUN),RATIO,TARGET,RESULT" "$RESULTS" 2>/dev/null || tr '|' '\t' <"$RESULTS"
echo
echo "raw outputs and summary.md: $OUT"
