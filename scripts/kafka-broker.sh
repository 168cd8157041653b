#!/usr/bin/env bash
# A local single-node Kafka broker (KRaft) without Docker, for development and the kafka tests.
#
#   scripts/kafka-broker.sh start    fetch the jars (once), format storage (once), start, wait until ready
#   scripts/kafka-broker.sh stop     stop the broker started by this script
#   scripts/kafka-broker.sh status   exit 0 when it runs and answers, 1 otherwise
#   scripts/kafka-broker.sh reset    stop, then delete its data (topics, offsets, transactions)
#
# Environment: KAFKA_PORT (default 19092), KAFKA_CONTROLLER_PORT (default KAFKA_PORT+1),
# KAFKA_SASL_PORT (default KAFKA_PORT+2: a SASL_PLAINTEXT listener, mechanisms PLAIN, SCRAM-SHA-256
# and SCRAM-SHA-512, user eoscope, password eoscope-secret; for tests only), KAFKA_DIR (default
# .kafka in the repository), KAFKA_HEAP_OPTS, KAFKA_READY_TIMEOUT_MS (default 60000).
# Needs java 17+ and mvn; the jars come from Maven Central into ~/.m2 and are copied to $KAFKA_DIR/libs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
POM="$ROOT/scripts/kafka/pom.xml"
TEMPLATE="$ROOT/scripts/kafka/server.properties.template"
LOG4J="$ROOT/scripts/kafka/log4j2.properties"
KAFKA_PORT="${KAFKA_PORT:-19092}"
CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
SASL_PORT="${KAFKA_SASL_PORT:-$((KAFKA_PORT + 2))}"
KAFKA_DIR="${KAFKA_DIR:-$ROOT/.kafka}"
LIBS="$KAFKA_DIR/libs"
DATA="$KAFKA_DIR/data"
PROPS="$KAFKA_DIR/server.properties"
PIDFILE="$KAFKA_DIR/broker.pid"
PORTFILE="$KAFKA_DIR/broker.port"
LOGFILE="$KAFKA_DIR/broker.log"
READY_TIMEOUT_MS="${KAFKA_READY_TIMEOUT_MS:-60000}"
HEAP="${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"

say() { echo "kafka-broker: $*"; }
die() { echo "kafka-broker: $*" >&2; exit 1; }

require_tools() {
  command -v java >/dev/null || die "java not found: install a JDK 17+ (Debian: apt-get install -y openjdk-17-jdk-headless)"
  command -v node >/dev/null || die "node not found"
}

now_ms() { date +%s%3N; }

# The pid from the pid file, if that process still runs and is a Kafka broker.
running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka.Kafka' || return 1
  echo "$pid"
}

# The port the running broker was started on.
running_port() { cat "$PORTFILE" 2>/dev/null || echo "?"; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

fetch_jars() {
  local stamp="$LIBS/.pom.sha256" sum
  sum="$(sha256sum "$POM" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then return 0; fi
  command -v mvn >/dev/null || die "mvn not found: install Maven (Debian: apt-get install -y maven)"
  say "fetching broker jars with mvn (cached in ~/.m2 after the first run)"
  local t0; t0="$(now_ms)"
  rm -rf "$LIBS"
  mkdir -p "$LIBS"
  mvn -B -q -Dstyle.color=never -f "$POM" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$LIBS" </dev/null \
    || die "mvn could not fetch the broker jars (see the output above)"
  echo "$sum" >"$stamp"
  say "jars fetched in $(($(now_ms) - t0)) ms"
}

java_cp() { java -cp "$LIBS/*" -Dlog4j2.configurationFile="$LOG4J" "$@"; }

write_config() {
  mkdir -p "$DATA"
  sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" -e "s|@CONTROLLER_PORT@|$CONTROLLER_PORT|g" -e "s|@SASL_PORT@|$SASL_PORT|g" -e "s|@DATA_DIR@|$DATA|g" \
    "$TEMPLATE" >"$PROPS"
}

# Formats KRaft storage once, with the cluster id $1 (the nodes of a cluster share one) or a new one.
format_storage() {
  [[ -f "$DATA/meta.properties" ]] && return 0
  local id="${1:-}"
  [[ -n "$id" ]] || id="$(java_cp kafka.tools.StorageTool random-uuid 2>>"$LOGFILE" | tail -n1)"
  [[ -n "$id" ]] || die "StorageTool random-uuid printed no cluster id (see $LOGFILE)"
  java_cp kafka.tools.StorageTool format -t "$id" -c "$PROPS" </dev/null >>"$LOGFILE" 2>&1 \
    || die "could not format KRaft storage in $DATA (see $LOGFILE)"
  echo "$id" >"$KAFKA_DIR/cluster.id"
  say "formatted storage for cluster $id"
}

wait_ready() {
  local pid="$1" t0="$2" deadline=$(($(now_ms) + READY_TIMEOUT_MS))
  until port_open "$KAFKA_PORT"; do
    kill -0 "$pid" 2>/dev/null || { tail -n 30 "$LOGFILE" >&2; die "broker exited during start-up (log: $LOGFILE)"; }
    (($(now_ms) < deadline)) || die "port $KAFKA_PORT not open after ${READY_TIMEOUT_MS} ms (log: $LOGFILE)"
    sleep 0.1
  done
  local left=$((deadline - $(now_ms)))
  ((left > 0)) || left=1000
  node "$ROOT/scripts/kafka/broker-ready.mjs" "127.0.0.1:$KAFKA_PORT" "$left" </dev/null \
    || die "broker on port $KAFKA_PORT does not answer requests (log: $LOGFILE)"
  [[ -n "$SASL_PORT" ]] || { say "broker pid $pid ready on 127.0.0.1:$KAFKA_PORT in $(($(now_ms) - t0)) ms (log: $LOGFILE)"; return 0; }
  until port_open "$SASL_PORT"; do
    (($(now_ms) < deadline)) || die "SASL port $SASL_PORT not open after ${READY_TIMEOUT_MS} ms (log: $LOGFILE)"
    sleep 0.1
  done
  say "broker pid $pid ready on 127.0.0.1:$KAFKA_PORT (SASL_PLAINTEXT on $SASL_PORT) in $(($(now_ms) - t0)) ms (log: $LOGFILE)"
}

# The test user's SCRAM credentials are cluster metadata, not configuration: added once per data
# directory (through the plaintext listener), remembered by a stamp file beside the data.
SCRAM_USER=eoscope
SCRAM_PASSWORD=eoscope-secret
add_scram_user() {
  local stamp="$DATA/.scram-$SCRAM_USER" mechanism
  [[ -f "$stamp" ]] && return 0
  for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
    java_cp kafka.admin.ConfigCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" --alter --entity-type users --entity-name "$SCRAM_USER" \
      --add-config "$mechanism=[password=$SCRAM_PASSWORD]" </dev/null >>"$LOGFILE" 2>&1 || {
      say "warning: could not add the $mechanism credentials of user $SCRAM_USER (log: $LOGFILE); SCRAM logins will fail"
      return 0
    }
  done
  touch "$stamp"
  say "added SCRAM-SHA-256 and SCRAM-SHA-512 credentials for user $SCRAM_USER"
}

start() {
  require_tools
  mkdir -p "$KAFKA_DIR"
  local pid
  if pid="$(running_pid)"; then
    [[ "$(running_port)" == "$KAFKA_PORT" ]] \
      || die "the broker of $KAFKA_DIR (pid $pid) listens on port $(running_port), not $KAFKA_PORT: stop it first"
    say "already running: pid $pid on 127.0.0.1:$KAFKA_PORT"
    port_open "$SASL_PORT" \
      || say "note: it has no SASL listener on $SASL_PORT (started with an older configuration?); restart it for the SASL tests"
    return 0
  fi
  rm -f "$PIDFILE"
  if port_open "$KAFKA_PORT"; then
    if node "$ROOT/scripts/kafka/broker-ready.mjs" "127.0.0.1:$KAFKA_PORT" 3000 </dev/null >/dev/null 2>&1; then
      say "a broker not started by this script already answers on 127.0.0.1:$KAFKA_PORT; using it"
      return 0
    fi
    die "port $KAFKA_PORT is in use by something that is not a Kafka broker: set KAFKA_PORT"
  fi
  if port_open "$SASL_PORT"; then die "port $SASL_PORT (the SASL listener) is in use: set KAFKA_SASL_PORT"; fi
  fetch_jars
  write_config
  format_storage
  local t0; t0="$(now_ms)"
  pid="$(launch)"
  wait_ready "$pid" "$t0"
  add_scram_user
}

# Starts the JVM of $PROPS in its own session, writes its pid and port files, prints the pid.
launch() {
  echo "---- start $(date -u +%FT%TZ) port $KAFKA_PORT" >>"$LOGFILE"
  # shellcheck disable=SC2086
  setsid java $HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$LOG4J" -cp "$LIBS/*" kafka.Kafka "$PROPS" </dev/null >>"$LOGFILE" 2>&1 &
  echo "$!" >"$PIDFILE"
  echo "$KAFKA_PORT" >"$PORTFILE"
  echo "$!"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PIDFILE"
    say "not running"
    return 0
  fi
  kill -TERM "$pid"
  local i
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "pid $pid did not stop within 30 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDFILE" "$PORTFILE"
  say "stopped pid $pid"
}

status() {
  local pid
  if pid="$(running_pid)"; then
    if [[ "$(running_port)" != "$KAFKA_PORT" ]]; then
      say "pid $pid runs on port $(running_port), not $KAFKA_PORT"
      return 1
    fi
    if port_open "$KAFKA_PORT"; then
      say "running: pid $pid on 127.0.0.1:$KAFKA_PORT"
      return 0
    fi
    say "pid $pid runs but port $KAFKA_PORT is closed (starting, or another KAFKA_PORT)"
    return 1
  fi
  say "not running"
  return 1
}

reset() {
  stop
  rm -rf "$DATA" "$KAFKA_DIR/cluster.id" "$PROPS"
  say "data deleted"
}

# Sourced (scripts/kafka-cluster.sh reuses these functions): define them, run nothing.
[[ "${BASH_SOURCE[0]}" == "$0" ]] || return 0

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  reset) reset ;;
  *) die "usage: $0 start|stop|status|reset" ;;
esac
