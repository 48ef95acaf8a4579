#!/usr/bin/env bash
# kubectl against the sample's local API server, as docs/local-api-server.md runs it: starts the
# standalone local API server and one replica of the sample in the local profile, from the jar that
# ./mvnw -B verify built, waits for the replica to lead, then checks that `kubectl get leases` names
# the sample's Lease and its holder and that `kubectl get events` lists the Event of the grant, with
# nothing on kubectl's standard error. Uses the kubectl on the PATH, or installs Debian's
# kubernetes-client where there is none. Stops what it started however it ends; exits non-zero
# when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."

jar=sample-app/target/leader-election-sample-app-0.1.0-SNAPSHOT.jar
identity=kubectl-check
work=$(mktemp -d)
started=()

stop_started() {
  local pid
  for pid in "${started[@]}"; do
    kill -- -"$pid" 2>/dev/null || true
  done
  for pid in "${started[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap stop_started EXIT

# Says what failed, shows the logs, and exits non-zero.
fail() {
  local log
  echo "kubectl-local-api-server: FAILED: $*" >&2
  for log in "$work"/*.log "$work"/*.out "$work"/*.err; do
    [[ -f $log ]] && { echo "--- $log" >&2; cat "$log" >&2; }
  done
  exit 1
}

# Prints the first line of log $1 matching the extended regex $2, waiting up to $3 seconds for it
# while process $4 lives.
wait_for_line() {
  local log=$1 pattern=$2 seconds=$3 pid=$4
  for _ in $(seq 1 "$seconds"); do
    if grep -m1 -E "$pattern" "$log"; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || fail "process $pid ended before its log said: $pattern"
    sleep 1
  done
  fail "no line '$pattern' in $log within $seconds s"
}

# The time of a log line of Spring Boot's format, in seconds since the epoch (with fractions).
log_time() {
  date -d "${1%% *}" +%s.%N
}

[[ -f $jar ]] || fail "$jar is missing: build the project first (./mvnw -B verify)"

if ! command -v kubectl >/dev/null; then
  echo "kubectl-local-api-server: no kubectl on the PATH; installing Debian's kubernetes-client"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client >/dev/null
fi
echo "kubectl-local-api-server: $(command -v kubectl), $(kubectl version --client 2>/dev/null | head -1)"

# The standalone local API server, on a port the system picks: a fixed one could be taken here.
setsid java -Dloader.main=io.leaderelection.sample.apiserver.LocalApiServerApplication -cp "$jar" \
  org.springframework.boot.loader.launch.PropertiesLauncher --sample.local-api-server.port=0 \
  >"$work/api-server.log" 2>&1 &
started+=($!)
line=$(wait_for_line "$work/api-server.log" 'Local API server on http://127\.0\.0\.1:[0-9]+' 120 "${started[0]}")
port=$(sed -E 's|.*Local API server on http://127\.0\.0\.1:([0-9]+).*|\1|' <<<"$line")
echo "kubectl-local-api-server: local API server on port $port"

# A replica of the sample, in the local profile as spring-boot:run starts it, which joins it.
setsid java -jar "$jar" --spring.profiles.active=local --server.port=0 --sample.local-api-server.enabled=true \
  --sample.local-api-server.port="$port" --leader.election.identity="$identity" >"$work/sample.log" 2>&1 &
started+=($!)
wait_for_line "$work/sample.log" "joined the local API server on http://127\.0\.0\.1:$port" 120 "${started[1]}" \
  >/dev/null
led=$(wait_for_line "$work/sample.log" "This replica became leader of election 'default'" 120 "${started[1]}")
started_line=$(wait_for_line "$work/sample.log" \
  'Started SampleApplication in [0-9.]+ seconds \(process running for [0-9.]+\)' 10 "${started[1]}")
running_for=$(sed -E 's/.*process running for ([0-9.]+)\).*/\1/' <<<"$started_line")
# when its JVM started: the Started line's time less the time the process had been running then
awk -v led="$(log_time "$led")" -v ready="$(log_time "$started_line")" -v running="$running_for" \
  'BEGIN { printf "kubectl-local-api-server: the sample led %.1f s after its JVM started\n", led - ready + running }'

: >"$work/kubeconfig"
kube=(env KUBECONFIG="$work/kubeconfig" kubectl --server "http://127.0.0.1:$port" --cache-dir "$work/kube-cache")

"${kube[@]}" get leases >"$work/get-leases.out" 2>"$work/get-leases.err" || fail "kubectl get leases failed"
[[ -s $work/get-leases.err ]] && fail "kubectl get leases printed on standard error"
grep -Eq '^NAME +HOLDER +AGE *$' "$work/get-leases.out" || fail "kubectl get leases printed no NAME HOLDER AGE heading"
grep -Eq "^sample-leader +$identity +[0-9]" "$work/get-leases.out" ||
  fail "kubectl get leases did not name sample-leader held by $identity"
cat "$work/get-leases.out"
echo "kubectl-local-api-server: kubectl get leases names sample-leader, held by $identity"

# The Events are written after the grant, on a thread of their own: until then kubectl says on
# standard error that there are none, and nothing else.
for _ in $(seq 1 30); do
  "${kube[@]}" get events >"$work/get-events.out" 2>"$work/get-events.err" || fail "kubectl get events failed"
  grep -qv '^No resources found in default namespace\.$' "$work/get-events.err" &&
    fail "kubectl get events printed on standard error"
  grep -Eq "LeaderElection +lease/sample-leader +$identity became leader" "$work/get-events.out" && break
  sleep 1
done
grep -Eq "LeaderElection +lease/sample-leader +$identity became leader" "$work/get-events.out" ||
  fail "kubectl get events listed no '$identity became leader' on lease/sample-leader"
grep -E '^LAST SEEN|lease/sample-leader ' "$work/get-events.out"
echo "kubectl-local-api-server: kubectl get events lists '$identity became leader' on lease/sample-leader"
echo "kubectl-local-api-server: passed"
