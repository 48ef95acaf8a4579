#!/usr/bin/env bash
# Starts the Boot 3.5 sample app's jar (built beforehand) with the java of the JAVA_HOME given as
# first argument, from the repository root, until it leads; fails if the JVM printed a warning on
# the way (a line starting with "WARNING:", as the JVM writes them to stderr: sun.misc.Unsafe
# memory access, restricted native access, agents loaded while running, ...). The app is stopped
# either way.
set -euo pipefail

java_home=${1:?usage: $0 JAVA_HOME}
java=$java_home/bin/java
jar=sample-app/target/leader-election-sample-app-0.1.0-SNAPSHOT.jar
leads="This replica became leader of election 'default'"
# How long the app may take to lead: it starts, then waits a lease duration (15 s) on a new Lease.
lead_timeout=180
# How long it may take to stop once asked: two shutdown phases of 20 s each (application.yml).
stop_timeout=60

[[ -x $java ]] || { echo "No java at $java" >&2; exit 2; }
[[ -f $jar ]] || { echo "No $jar: build it first (./mvnw -B -pl sample-app -am package -DskipTests)" >&2; exit 2; }

log=$(mktemp)
# Free ports for the web server and the local API server: another application (.ci/run's
# spring-boot:run samples among them) may hold 8080 or the local API server's default. The local
# profile, as on a laptop: its first leader comes a lease duration of 3 s after it campaigns.
setsid "$java" -jar "$jar" --server.port=0 --sample.local-api-server.port=0 --spring.profiles.active=local \
  >"$log" 2>&1 &
app=$!

stop_app() {
  if kill -0 "$app" 2>/dev/null; then
    kill -TERM -- -"$app" 2>/dev/null || true
    for _ in $(seq 1 "$stop_timeout"); do
      kill -0 "$app" 2>/dev/null || break
      sleep 1
    done
    kill -KILL -- -"$app" 2>/dev/null || true
  fi
  wait "$app" 2>/dev/null || true
}
trap 'stop_app; rm -f "$log"' EXIT

label="sample-app on Java $("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p')"
led=false
for _ in $(seq 1 "$lead_timeout"); do
  if grep -q "$leads" "$log"; then
    led=true
    break
  fi
  kill -0 "$app" 2>/dev/null || break
  sleep 1
done
# Stopped before looking at the output, so that what it prints while shutting down counts too.
stop_app

if [[ $led != true ]]; then
  cat "$log"
  echo "$label: did not become leader within ${lead_timeout} s" >&2
  exit 1
fi
if grep -q '^WARNING:' "$log"; then
  echo "$label: the JVM printed warnings:" >&2
  grep '^WARNING:' "$log" >&2
  exit 1
fi
echo "$label: led, and the JVM printed no warning ($(grep -m1 "$leads" "$log"))"
