#!/usr/bin/env bash
# A local KRaft cluster of N nodes (default 3), each a broker and a controller, without Docker:
# replication factor 3, min.insync.replicas 2, the offsets and transaction state logs replicated
# (scripts/kafka/cluster.properties.template). Reuses scripts/kafka-broker.sh's functions.
#
#   scripts/kafka-cluster.sh start        fetch the jars (once), format every node (once), start all, wait until ready
#   scripts/kafka-cluster.sh stop         stop every node (SIGTERM: controlled shutdown)
#   scripts/kafka-cluster.sh status       one line per node; exit 0 when every node runs and answers
#   scripts/kafka-cluster.sh kill ID      SIGKILL broker ID (no controlled shutdown: leaders and coordinators move on fencing)
#   scripts/kafka-cluster.sh restart ID   stop broker ID if it runs (SIGTERM), start it again, wait until it answers
#   scripts/kafka-cluster.sh reset        stop, then delete every node's data
#
# Node ID (1..N) listens for clients on KAFKA_PORT+ID-1 and for the quorum on KAFKA_PORT+N+ID-1.
# Files: $KAFKA_DIR/broker-ID.pid, broker-ID.port and cluster.env (what eoscope's broker control reads),
# $KAFKA_DIR/node-ID/{server.properties,data,broker.log}.
# Environment: KAFKA_PORT (first client port, default 19192), KAFKA_BROKERS_COUNT (default 3),
# KAFKA_DIR (default .kafka-cluster in the repository), KAFKA_HEAP_OPTS (default -Xms128m -Xmx384m
# per node), KAFKA_READY_TIMEOUT_MS (default 120000).
set -euo pipefail

CLUSTER_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLUSTER_PORT="${KAFKA_PORT:-19192}"
COUNT="${KAFKA_BROKERS_COUNT:-3}"
CLUSTER_DIR="${KAFKA_DIR:-$CLUSTER_SCRIPT_DIR/../.kafka-cluster}"
# Absolute, so each broker's command line names its directory (eoscope's broker control checks it).
CLUSTER_DIR="$(mkdir -p "$CLUSTER_DIR" && cd "$CLUSTER_DIR" && pwd)"
export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms128m -Xmx384m}"
export KAFKA_READY_TIMEOUT_MS="${KAFKA_READY_TIMEOUT_MS:-120000}"
KAFKA_DIR="$CLUSTER_DIR" KAFKA_PORT="$CLUSTER_PORT" source "$CLUSTER_SCRIPT_DIR/kafka-broker.sh"
KAFKA_DIR="$CLUSTER_DIR"
TEMPLATE="$ROOT/scripts/kafka/cluster.properties.template"

say() { echo "kafka-cluster: $*"; }
die() { echo "kafka-cluster: $*" >&2; exit 1; }

[[ "$COUNT" =~ ^[1-9]$ ]] || die "KAFKA_BROKERS_COUNT must be 1 to 9, not '$COUNT'"

# Points kafka-broker.sh's per-broker globals at node $1.
use_node() {
  local id="$1"
  [[ "$id" =~ ^[0-9]+$ ]] && ((id >= 1 && id <= COUNT)) || die "no broker '$id': the cluster has brokers 1 to $COUNT"
  NODE_ID="$id"
  KAFKA_PORT=$((CLUSTER_PORT + id - 1))
  CONTROLLER_PORT=$((CLUSTER_PORT + COUNT + id - 1))
  SASL_PORT=""
  DATA="$KAFKA_DIR/node-$id/data"
  PROPS="$KAFKA_DIR/node-$id/server.properties"
  LOGFILE="$KAFKA_DIR/node-$id/broker.log"
  PIDFILE="$KAFKA_DIR/broker-$id.pid"
  PORTFILE="$KAFKA_DIR/broker-$id.port"
}

voters() {
  local i out=""
  for ((i = 1; i <= COUNT; i++)); do out+="${out:+,}$i@127.0.0.1:$((CLUSTER_PORT + COUNT + i - 1))"; done
  echo "$out"
}

cluster_id() {
  local file="$KAFKA_DIR/cluster.id"
  if [[ ! -s "$file" ]]; then
    mkdir -p "$KAFKA_DIR"
    # Kafka's Uuid.randomUuid: 16 random bytes, base64url without padding, not starting with '-'
    # (made here: a JVM started only for this costs seconds on a busy machine).
    local id="-"
    while [[ "$id" == -* ]]; do id="$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"; done
    echo "$id" >"$file"
  fi
  [[ -s "$file" ]] || die "StorageTool random-uuid printed no cluster id"
  cat "$file"
}

prepare_node() {
  mkdir -p "$KAFKA_DIR/node-$NODE_ID"
  write_config
  sed -i -e "s|@NODE_ID@|$NODE_ID|g" -e "s|@QUORUM_VOTERS@|$(voters)|g" "$PROPS"
  format_storage "$(cluster_id)"
}

# Launches node $1 unless it runs; prints its pid.
launch_node() {
  use_node "$1"
  local pid
  if pid="$(running_pid)"; then echo "$pid"; return 0; fi
  rm -f "$PIDFILE"
  port_open "$KAFKA_PORT" && die "port $KAFKA_PORT (broker $NODE_ID) is in use by a process this script did not start: set KAFKA_PORT"
  port_open "$CONTROLLER_PORT" && die "port $CONTROLLER_PORT (controller $NODE_ID) is in use: set KAFKA_PORT"
  prepare_node >&2
  launch
}

start_all() {
  require_tools
  fetch_jars
  local i t0 pids=()
  t0="$(now_ms)"
  # All nodes first: a controller quorum of three elects a leader only once two of them run.
  mkdir -p "$KAFKA_DIR"
  printf 'KAFKA_PORT=%s\nKAFKA_BROKERS_COUNT=%s\n' "$CLUSTER_PORT" "$COUNT" >"$KAFKA_DIR/cluster.env"
  # Format the nodes' storage side by side (one JVM each), then start them.
  cluster_id >/dev/null
  for ((i = 1; i <= COUNT; i++)); do (use_node "$i"; [[ -f "$DATA/meta.properties" ]] || prepare_node >/dev/null) & done
  wait
  for ((i = 1; i <= COUNT; i++)); do pids[i]="$(launch_node "$i")"; done
  for ((i = 1; i <= COUNT; i++)); do
    use_node "$i"
    wait_ready "${pids[i]}" "$t0"
  done
  say "$COUNT brokers ready on $(brokers_list) in $(($(now_ms) - t0)) ms"
}

brokers_list() {
  local i out=""
  for ((i = 1; i <= COUNT; i++)); do out+="${out:+,}127.0.0.1:$((CLUSTER_PORT + i - 1))"; done
  echo "$out"
}

# SIGTERM to every node at once: the last one of a quorum stopped alone would wait for the others.
stop_all() {
  local i pid pids=()
  for ((i = 1; i <= COUNT; i++)); do
    use_node "$i"
    if pid="$(running_pid)"; then kill -TERM "$pid"; pids+=("$pid"); fi
  done
  for ((i = 0; i < 300; i++)); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && { say "pid $pid did not stop within 30 s; killing it"; kill -KILL "$pid" 2>/dev/null || true; }; done
  for ((i = 1; i <= COUNT; i++)); do use_node "$i"; rm -f "$PIDFILE" "$PORTFILE"; done
  say "stopped ${#pids[@]} broker(s)"
}

status_all() {
  local i pid ok=0
  for ((i = 1; i <= COUNT; i++)); do
    use_node "$i"
    if pid="$(running_pid)" && port_open "$KAFKA_PORT"; then
      say "broker $i: running, pid $pid on 127.0.0.1:$KAFKA_PORT"
    else
      say "broker $i: down (127.0.0.1:$KAFKA_PORT)"
      ok=1
    fi
  done
  return "$ok"
}

kill_node() {
  use_node "$1"
  local pid
  pid="$(running_pid)" || die "broker $NODE_ID is not running (no live pid in $PIDFILE)"
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  say "broker $NODE_ID (pid $pid) killed with SIGKILL"
}

# Waits (up to 15 s) until nothing listens on the port: a broker SIGKILLed a moment ago still holds
# its sockets while the kernel tears the process down, and a restart then would find the port taken.
wait_port_free() {
  local deadline=$(($(now_ms) + 15000))
  while port_open "$1"; do
    (($(now_ms) < deadline)) || return 0
    sleep 0.1
  done
}

restart_node() {
  use_node "$1"
  if running_pid >/dev/null; then stop; fi
  wait_port_free "$KAFKA_PORT"
  wait_port_free "$CONTROLLER_PORT"
  fetch_jars
  local t0 pid
  t0="$(now_ms)"
  pid="$(launch_node "$1")"
  use_node "$1"
  wait_ready "$pid" "$t0"
}

case "${1:-}" in
  start) start_all ;;
  stop) stop_all ;;
  status) status_all ;;
  kill) kill_node "${2:-}" ;;
  restart) restart_node "${2:-}" ;;
  reset)
    stop_all
    rm -rf "$KAFKA_DIR"/node-* "$KAFKA_DIR/cluster.id" "$KAFKA_DIR/cluster.env" "$KAFKA_DIR"/broker-*.port
    say "data deleted"
    ;;
  brokers) brokers_list ;;
  *) die "usage: $0 start|stop|status|kill ID|restart ID|reset|brokers" ;;
esac
