#!/usr/bin/env bash
# Checks goheap against real Go services as Debian ships them: stripped,
# externally linked builds of prometheus-alertmanager, nats-server, caddy and
# syncthing from bookworm (Go 1.19), trixie (Go 1.24) and forky (Go 1.26,
# 1.27) (issue 28). Not part of CI; a developer runs it by hand:
#
#   scripts/check-services.sh                 # every suite and service
#   GOHEAP=build-release/goheap SUITES=forky SERVICES="caddy nats" scripts/check-services.sh
#
# For each suite x service it downloads the package with apt-get (a temporary
# sources list, as install-deps.sh does for the Go toolchains) and unpacks it
# with dpkg -x into $GOHEAP_SERVICES_DIR/<suite>/<package> (default
# /opt/goheap/services; nothing is installed over the system), starts the
# service on 127.0.0.1 with free ports and a config in a temporary folder,
# loads it for LOAD_SECONDS, reads go_memstats_heap_alloc_bytes from its
# /metrics where it has one, snaps it with `goheap snap`, stops it, and reads
# the core with `goheap summary --json` and `goheap top --by type --json`.
# Checks, as issue 28 asks:
#   - at least 95% of the reachable bytes typed (issue 44; 80% in issue 28);
#   - the ten groups retaining most are Go types (source "type");
#   - where the service exports Go's metrics: memstats' HeapAlloc as goheap
#     reads it within 10% of the service's go_memstats_heap_alloc_bytes.
# Every core is deleted afterwards, except that with KEEP_DIR set the cores of
# up to KEEP_MAX (2) failing cases are moved there with a copy of their
# executable, for reproducing. One table at the end; exit status 1 when a
# check failed, 2 when the script itself could not run.
#
# Environment:
#   GOHEAP               goheap binary (default: build-release/goheap, build/goheap, then PATH)
#   GOHEAP_SERVICES_DIR  where packages are unpacked (default /opt/goheap/services)
#   SUITES               default "bookworm trixie forky"
#   SERVICES             default "alertmanager nats caddy syncthing"
#   LOAD_SECONDS         load per service (default 5)
#   RESULTS_DIR          per-case logs and JSON (default: a new folder in $TMPDIR, kept)
#   KEEP_DIR, KEEP_MAX   keep failing cores there (default: none kept; at most 2)
#   GO                   a go binary for `go version -m` (default: /opt/goheap/go1.27/..., then PATH)
#
# Needs: apt-get, dpkg, curl, python3, readelf, file, unshare (alertmanager's
# Debian build reads its templates from /usr/share/prometheus, so it runs in a
# private mount namespace with the package's /usr/share overlaid), and the
# permission to ptrace the services (root, or ptrace_scope 0).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
start_time=$(date +%s)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

SUITES=${SUITES:-bookworm trixie forky}
SERVICES=${SERVICES:-alertmanager nats caddy syncthing}
LOAD_SECONDS=${LOAD_SECONDS:-5}
SERVICES_DIR=${GOHEAP_SERVICES_DIR:-/opt/goheap/services}
KEEP_DIR=${KEEP_DIR:-}
KEEP_MAX=${KEEP_MAX:-2}
# A stripped build is the point: no debug file from a server.
unset DEBUGINFOD_URLS

die() { echo "check-services: $*" >&2; exit 2; }
log() { echo "check-services: $*" >&2; }

if [ -z "${GOHEAP:-}" ]; then
  for g in "$here/build-release/goheap" "$here/build/goheap"; do
    if [ -x "$g" ]; then GOHEAP=$g; break; fi
  done
  GOHEAP=${GOHEAP:-$(command -v goheap || true)}
fi
[ -n "${GOHEAP:-}" ] && [ -x "$GOHEAP" ] || die "no goheap binary: build it, or set GOHEAP"
if [ -z "${GO:-}" ]; then
  for g in /opt/goheap/go1.27/usr/lib/go-1.27/bin/go /opt/goheap/go1.26/usr/lib/go-1.26/bin/go; do
    if [ -x "$g" ]; then GO=$g; break; fi
  done
  GO=${GO:-$(command -v go || true)}
fi
for tool in apt-get dpkg curl python3 readelf file unshare timeout; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs the others)"
done

RESULTS_DIR=${RESULTS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/goheap-services.XXXXXX")}
mkdir -p "$RESULTS_DIR"
work=$(mktemp -d "${TMPDIR:-/tmp}/goheap-services-run.XXXXXX")
table="$RESULTS_DIR/table.tsv"
: >"$table"
kept=0

# Every process the script starts is listed here, killed on exit.
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then kill -TERM "$p" 2>/dev/null || true; fi
  done
  sleep 0.5
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then kill -KILL "$p" 2>/dev/null || true; fi
  done
  rm -rf "$work"
  if [ -n "${apt_work:-}" ]; then $SUDO rm -rf "$apt_work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- packages

package_of() { # service
  case $1 in
    alertmanager) echo prometheus-alertmanager ;;
    nats) echo nats-server ;;
    caddy) echo caddy ;;
    syncthing) echo syncthing ;;
    *) die "unknown service $1 (alertmanager, nats, caddy, syncthing)" ;;
  esac
}
binary_of() { # service
  case $1 in
    alertmanager) echo usr/bin/prometheus-alertmanager ;;
    nats) echo usr/sbin/nats-server ;;
    caddy) echo usr/bin/caddy ;;
    syncthing) echo usr/bin/syncthing ;;
  esac
}

apt_work=""
apt_opts=()
apt_lists() {
  [ -n "$apt_work" ] && return 0
  apt_work=$(mktemp -d)
  local mirror suite
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  mkdir -p "$apt_work/lists/partial" "$apt_work/cache/archives/partial"
  for suite in bookworm trixie forky; do
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main"
  done >"$apt_work/services.list"
  apt_opts=(-o Dir::Etc::SourceList="$apt_work/services.list" -o Dir::Etc::SourceParts=-
            -o Dir::State::Lists="$apt_work/lists" -o Dir::Cache="$apt_work/cache"
            -o APT::Get::List-Cleanup=0 -o Acquire::Languages=none -o APT::Sandbox::User=root)
  log "fetching the package lists of Debian bookworm, trixie and forky"
  $SUDO timeout 600 apt-get "${apt_opts[@]}" update -q >"$apt_work/update.log" 2>&1 ||
    { cat "$apt_work/update.log" >&2; die "apt-get update failed"; }
}

# Unpacks PACKAGE from SUITE into $SERVICES_DIR/SUITE/PACKAGE (once); its
# version is kept there in .deb-version.
unpack() { # suite package
  local suite=$1 pkg=$2 root="$SERVICES_DIR/$1/$2" deb
  if [ -s "$root/.deb-version" ]; then return 0; fi
  apt_lists
  rm -rf "$apt_work/debs"; mkdir -p "$apt_work/debs"
  if ! (cd "$apt_work/debs" && $SUDO timeout 600 apt-get "${apt_opts[@]}" download -q "$pkg/$suite") \
      >"$apt_work/download.log" 2>&1; then
    cat "$apt_work/download.log" >&2
    log "Debian $suite has no $pkg to download"
    return 1
  fi
  deb=$(ls "$apt_work"/debs/*.deb)
  log "unpacking $(basename "$deb") into $root"
  $SUDO rm -rf "$root.partial"
  $SUDO mkdir -p "$root.partial"
  $SUDO dpkg -x "$deb" "$root.partial"
  dpkg-deb -f "$deb" Version | $SUDO tee "$root.partial/.deb-version" >/dev/null
  $SUDO rm -rf "$root"
  $SUDO mv "$root.partial" "$root"
}

# ---------------------------------------------------------------- helpers

# Free ports below the kernel's ephemeral range, where the load's client
# connections (and their TIME_WAIT) do not take them meanwhile.
free_ports() { # count
  python3 - "$1" <<'EOF'
import random, socket, sys
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
ports = []
while len(ports) < int(sys.argv[1]):
    p = random.randrange(10000, max(lo, 10001))
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        if p not in ports: ports.append(p)
    except OSError:
        pass
    finally:
        s.close()
print(" ".join(map(str, ports)))
EOF
}

# Waits until URL answers (any HTTP status; curl exit 0) or the process dies.
wait_http() { # pid url seconds [curl args...]
  local pid=$1 url=$2 secs=$3; shift 3
  local deadline=$(( $(date +%s) + secs ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    kill -0 "$pid" 2>/dev/null || return 1
    if curl -s -o /dev/null --max-time 2 "$@" "$url"; then return 0; fi
    sleep 0.2
  done
  return 1
}

wait_tcp() { # pid port seconds
  local pid=$1 port=$2 secs=$3
  local deadline=$(( $(date +%s) + secs ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    kill -0 "$pid" 2>/dev/null || return 1
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  return 1
}

# go_memstats_heap_alloc_bytes from a Prometheus /metrics page, as an integer.
heap_alloc_metric() { # url [curl args...]
  local url=$1 page; shift
  page=$(curl -sf --max-time 10 "$@" "$url" 2>/dev/null) || return 1
  awk '$1 == "go_memstats_heap_alloc_bytes" && !found {printf "%.0f\n", $2; found = 1} END {exit !found}' <<<"$page"
}

stop_pid() { # pid
  local p=$1 i
  kill -TERM "$p" 2>/dev/null || return 0
  for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
}

# ---------------------------------------------------------------- services
# Each start_X sets svc_pid (the Go process itself), metrics_url and
# metrics_args (empty when the service has no Go metrics); each load_X runs
# the load for LOAD_SECONDS and may leave holder_pid, a client that keeps
# connections open until after the snap.

start_alertmanager() { # root dir
  local root=$1 dir=$2 port
  port=$(free_ports 1)
  cat >"$dir/alertmanager.yml" <<'EOF'
route:
  receiver: 'null'
  group_by: ['alertname', 'batch']
  group_wait: 1s
  group_interval: 2s
receivers:
- name: 'null'
inhibit_rules:
- source_matchers: [severity="critical"]
  target_matchers: [severity="warning"]
  equal: ['instance']
EOF
  # Debian's build reads /usr/share/prometheus/alertmanager/default.tmpl:
  # the package's /usr/share is overlaid on the system's in a private mount
  # namespace; unshare execs sh, which execs alertmanager, so $! is its pid.
  local ns=(unshare -m --propagation private)
  if [ "$(id -u)" != 0 ]; then ns=(unshare -r -m --propagation private); fi
  GODEBUG=gctrace=1 "${ns[@]}" sh -c 'mount -t overlay overlay -o "lowerdir=/usr/share:$1/usr/share" /usr/share && shift && exec "$@"' \
    sh "$root" "$root/usr/bin/prometheus-alertmanager" \
    --config.file="$dir/alertmanager.yml" --storage.path="$dir/data" \
    --web.listen-address="127.0.0.1:$port" --cluster.listen-address= \
    >"$dir/service.log" 2>&1 &
  svc_pid=$!; pids+=("$svc_pid")
  base="http://127.0.0.1:$port"
  metrics_url="$base/metrics"; metrics_args=()
  wait_http "$svc_pid" "$base/-/ready" 30
}

load_alertmanager() { # dir
  local dir=$1 end b i
  python3 - "$dir" <<'EOF'
import json, sys
for b in range(40):
    alerts = [{"labels": {"alertname": "Load%d" % (b % 8), "batch": str(b), "instance": "host%d.example:9100" % i,
                          "job": "node", "severity": "critical" if i % 10 == 0 else "warning"},
               "annotations": {"summary": "load alert %d of batch %d" % (i, b), "description": "x" * 300},
               "generatorURL": "http://127.0.0.1:9090/graph?g0.expr=up%%7Binstance%%3D%%22host%d%%22%%7D" % i}
              for i in range(250)]
    open("%s/alerts%d.json" % (sys.argv[1], b), "w").write(json.dumps(alerts))
EOF
  end=$(( $(date +%s) + LOAD_SECONDS )); b=0
  while [ "$(date +%s)" -lt "$end" ] || [ $b -lt 40 ]; do
    curl -sf -o /dev/null --max-time 10 -H 'Content-Type: application/json' \
      --data-binary "@$dir/alerts$((b % 40)).json" "$base/api/v2/alerts" || log "alertmanager: POST /api/v2/alerts failed"
    if [ $((b % 5)) = 0 ]; then
      curl -sf -o /dev/null --max-time 10 -H 'Content-Type: application/json' --data-binary \
        "{\"matchers\":[{\"name\":\"batch\",\"value\":\"$b\",\"isRegex\":false}],\"startsAt\":\"2020-01-01T00:00:00Z\",\"endsAt\":\"2099-01-01T00:00:00Z\",\"createdBy\":\"check-services\",\"comment\":\"silence $b\"}" \
        "$base/api/v2/silences" || log "alertmanager: POST /api/v2/silences failed"
      curl -sf -o /dev/null --max-time 10 "$base/api/v2/alerts/groups" || true
    fi
    curl -sf -o /dev/null --max-time 10 "$base/api/v2/alerts?filter=severity%3D%22critical%22" || true
    b=$((b + 1))
    [ $b -lt 400 ] || break
  done
  for i in 1 2 3; do curl -sf -o /dev/null --max-time 10 "$base/api/v2/status" || true; done
}

start_nats() { # root dir
  local root=$1 dir=$2 mon
  read -r port mon < <(free_ports 2)
  "$root/usr/sbin/nats-server" -a 127.0.0.1 -p "$port" -m "$mon" -js -sd "$dir/js" \
    >"$dir/service.log" 2>&1 &
  svc_pid=$!; pids+=("$svc_pid")
  base="http://127.0.0.1:$mon"
  metrics_url=""; metrics_args=()   # /varz has no Go memstats
  wait_http "$svc_pid" "$base/healthz" 30 && wait_tcp "$svc_pid" "$port" 10
}

# A raw-protocol client: creates a memory JetStream stream, opens 64
# subscriber connections, publishes for LOAD_SECONDS, says "ready" and keeps
# its connections open until it is killed.
load_nats() { # dir
  local dir=$1 i
  python3 - "$port" "$LOAD_SECONDS" >"$dir/load.log" 2>&1 <<'EOF' &
import json, os, random, select, socket, sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
def conn(name):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.recv(4096)  # INFO
    s.sendall(b'CONNECT {"verbose":false,"pedantic":false,"name":"%s","headers":true}\r\nPING\r\n' % name.encode())
    return s
def pub(s, subj, data, reply=b""):
    s.sendall(b"PUB %s %s %d\r\n%s\r\n" % (subj, reply, len(data), data))
ctl = conn("control")
ctl.sendall(b"SUB _INBOX.ctl 1\r\n")
cfg = json.dumps({"name": "LOAD", "subjects": ["js.>"], "storage": "memory", "max_msgs": 20000}).encode()
pub(ctl, b"$JS.API.STREAM.CREATE.LOAD", cfg, b"_INBOX.ctl")
time.sleep(0.5)
print("stream create:", ctl.recv(65536)[:300], flush=True)
subs = []
for i in range(64):
    s = conn("sub%d" % i)
    s.sendall(b"SUB load.%d %d\r\nSUB load.all q%d %d\r\n" % (i, 2 * i + 1, i % 4, 2 * i + 2))
    s.setblocking(False)
    subs.append(s)
pubc = conn("publisher")
def drain():
    r, _, _ = select.select(subs + [ctl, pubc], [], [], 0)
    for s in r:
        try:
            d = s.recv(1 << 20)
        except BlockingIOError:
            continue
        if b"PING\r\n" in d:
            s.setblocking(True); s.sendall(b"PONG\r\n"); s.setblocking(s in (ctl, pubc))
n = 0
end = time.time() + secs
while time.time() < end:
    batch = []
    for _ in range(200):
        data = os.urandom(random.randint(64, 512)).hex().encode()
        subj = b"js.%d" % (n % 500) if n % 2 else (b"load.%d" % (n % 64) if n % 3 else b"load.all")
        batch.append(b"PUB %s %d\r\n%s\r\n" % (subj, len(data), data))
        n += 1
    pubc.sendall(b"".join(batch))
    drain()
pubc.sendall(b"PING\r\n")
print("published", n, flush=True)
print("ready", flush=True)
while True:
    drain()
    time.sleep(0.2)
EOF
  holder_pid=$!; pids+=("$holder_pid")
  for i in $(seq 1 $((LOAD_SECONDS * 10 + 200))); do
    grep -q '^ready' "$dir/load.log" 2>/dev/null && break
    kill -0 "$holder_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q '^ready' "$dir/load.log" || log "nats: the load client did not finish: $(tail -3 "$dir/load.log")"
  for i in 1 2 3; do
    curl -sf -o /dev/null --max-time 10 "$base/varz" || true
    curl -sf -o /dev/null --max-time 10 "$base/connz?subs=1" || true
    curl -sf -o /dev/null --max-time 10 "$base/jsz?streams=1" || true
  done
}

start_caddy() { # root dir
  local root=$1 dir=$2 admin i
  read -r port admin < <(free_ports 2)
  mkdir -p "$dir/www/sub"
  echo "<html><body>check-services</body></html>" >"$dir/www/index.html"
  for i in $(seq 1 300); do
    head -c $(( (i * 7919) % 65536 + 100 )) /dev/urandom >"$dir/www/f$i.bin"
  done
  for i in $(seq 1 50); do printf 'line %d %s\n' "$i" "$(head -c 3000 /dev/zero | tr '\0' x)" >"$dir/www/sub/t$i.txt"; done
  cat >"$dir/caddy.json" <<EOF
{"admin": {"listen": "127.0.0.1:$admin"},
 "logging": {"logs": {"default": {"level": "WARN"}}},
 "storage": {"module": "file_system", "root": "$dir/data"},
 "apps": {"http": {"servers": {"load": {
   "listen": ["127.0.0.1:$port"], "automatic_https": {"disable": true}, "metrics": {},
   "routes": [{"handle": [{"handler": "encode", "encodings": {"gzip": {}}},
                          {"handler": "file_server", "root": "$dir/www", "browse": {}}]}]}}}}}
EOF
  HOME="$dir" XDG_DATA_HOME="$dir/xdg-data" XDG_CONFIG_HOME="$dir/xdg-config" \
    GODEBUG=gctrace=1 "$root/usr/bin/caddy" run --config "$dir/caddy.json" >"$dir/service.log" 2>&1 &
  svc_pid=$!; pids+=("$svc_pid")
  base="http://127.0.0.1:$port"
  metrics_url="http://127.0.0.1:$admin/metrics"; metrics_args=()
  wait_http "$svc_pid" "$base/" 30 && wait_http "$svc_pid" "$metrics_url" 10
}

load_caddy() { # dir
  local dir=$1 w args=() i
  for i in $(seq 1 300); do args+=(-o /dev/null "$base/f$i.bin"); done
  for i in $(seq 1 50); do args+=(-o /dev/null -H 'Accept-Encoding: gzip' "$base/sub/t$i.txt"); done
  args+=(-o /dev/null "$base/" -o /dev/null "$base/sub/" -o /dev/null "$base/missing")
  local end=$(( $(date +%s) + LOAD_SECONDS ))
  for w in 1 2 3 4; do
    ( while [ "$(date +%s)" -lt "$end" ]; do curl -s --max-time 30 "${args[@]}" || true; done ) &
    pids+=("$!")
  done
  wait_children_until "$end"
  curl -sf -o /dev/null --max-time 10 "${metrics_url%/metrics}/config/" || true
}

# Waits for the load workers (background subshells) to end, up to 30 s after END.
wait_children_until() { # end
  local deadline=$(( $1 + 30 )) p
  for p in $(jobs -p); do
    [ "$p" = "$svc_pid" ] && continue
    [ -n "${holder_pid:-}" ] && [ "$p" = "$holder_pid" ] && continue
    while kill -0 "$p" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
    kill -0 "$p" 2>/dev/null && kill -TERM "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}

start_syncthing() { # root dir
  local root=$1 dir=$2 gui listen i
  read -r gui listen < <(free_ports 2)
  apikey="check-services-$RANDOM$RANDOM"
  mkdir -p "$dir/home" "$dir/share"
  for i in $(seq 1 1500); do
    head -c $(( (i * 104729) % 20000 + 10 )) /dev/urandom >"$dir/share/file$i.dat"
  done
  mkdir -p "$dir/share/deep/a/b/c"
  for i in $(seq 1 200); do echo "$i" >"$dir/share/deep/a/b/c/n$i.txt"; done
  STNODEFAULTFOLDER=1 timeout 60 "$root/usr/bin/syncthing" generate --home="$dir/home" \
    --no-default-folder --skip-port-probing >"$dir/generate.log" 2>&1 ||
    { cat "$dir/generate.log" >&2; return 1; }
  # No discovery, relays, NAT, usage reports, upgrades or crash reports:
  # nothing leaves loopback.
  python3 - "$dir/home/config.xml" "$gui" "$listen" "$apikey" <<'EOF'
import sys, xml.etree.ElementTree as ET
path, gui, listen, key = sys.argv[1:]
tree = ET.parse(path); cfg = tree.getroot()
g = cfg.find("gui"); g.find("address").text = "127.0.0.1:" + gui
k = g.find("apikey")
if k is None: k = ET.SubElement(g, "apikey")
k.text = key
o = cfg.find("options")
for name, value in [("listenAddress", "tcp://127.0.0.1:" + listen), ("globalAnnounceEnabled", "false"),
                    ("localAnnounceEnabled", "false"), ("relaysEnabled", "false"), ("natEnabled", "false"),
                    ("startBrowser", "false"), ("urAccepted", "-1"), ("autoUpgradeIntervalH", "0"),
                    ("crashReportingEnabled", "false")]:
    for e in o.findall(name): o.remove(e)
    ET.SubElement(o, name).text = value
tree.write(path)
EOF
  STNOUPGRADE=1 STNODEFAULTFOLDER=1 "$root/usr/bin/syncthing" serve --home="$dir/home" --no-browser \
    --no-restart --gui-address="127.0.0.1:$gui" --gui-apikey="$apikey" >"$dir/service.log" 2>&1 &
  svc_pid=$!; pids+=("$svc_pid")
  base="http://127.0.0.1:$gui"
  # Syncthing 1.2x serves Go's metrics on /metrics, older releases do not:
  # metrics_url is kept only when the page has go_memstats.
  metrics_url="$base/metrics"; metrics_args=(-H "X-API-Key: $apikey")
  wait_http "$svc_pid" "$base/rest/system/ping" 60 -f -H "X-API-Key: $apikey" || return 1
  # Syncthing 1.2x runs a monitor process even with --no-restart; the
  # service (GUI, REST, metrics) is its child, which is the one snapped.
  local child
  for child in $(cat /proc/"$svc_pid"/task/*/children 2>/dev/null); do
    if [ "$(readlink "/proc/$child/exe")" = "$(readlink "/proc/$svc_pid/exe")" ]; then
      log "syncthing: pid $svc_pid is the monitor; snapping its child $child"
      snap_pid=$child; pids+=("$child")
    fi
  done
}

load_syncthing() { # dir
  local dir=$1 st myid i
  st=(-sf --max-time 20 -H "X-API-Key: $apikey")
  myid=$(curl "${st[@]}" "$base/rest/system/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["myID"])') ||
    { log "syncthing: GET /rest/system/status failed"; return 0; }
  curl "${st[@]}" -o /dev/null -X PUT -H 'Content-Type: application/json' --data \
    "{\"id\":\"load\",\"label\":\"load\",\"path\":\"$dir/share\",\"type\":\"sendreceive\",\"rescanIntervalS\":3600,\"fsWatcherEnabled\":false,\"devices\":[{\"deviceID\":\"$myid\"}]}" \
    "$base/rest/config/folders/load" || log "syncthing: PUT /rest/config/folders/load failed"
  curl "${st[@]}" -o /dev/null -X POST "$base/rest/db/scan?folder=load" || true
  local end=$(( $(date +%s) + LOAD_SECONDS + 20 )) state=""
  while [ "$(date +%s)" -lt "$end" ]; do
    state=$(curl "${st[@]}" "$base/rest/db/status?folder=load" 2>/dev/null |
            python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d.get("localFiles", 0))' 2>/dev/null || true)
    case $state in idle\ [1-9]*) break ;; esac
    sleep 0.5
  done
  log "syncthing: folder state after scan: ${state:-unknown}"
  end=$(( $(date +%s) + LOAD_SECONDS ))
  while [ "$(date +%s)" -lt "$end" ]; do
    for u in rest/system/status rest/system/connections rest/db/status?folder=load \
             "rest/db/browse?folder=load&levels=3" rest/db/need?folder=load rest/stats/device \
             rest/stats/folder rest/config "rest/events?since=0&timeout=0" rest/system/log; do
      curl "${st[@]}" -o /dev/null "$base/$u" || true
    done
  done
}

# ---------------------------------------------------------------- one case

# The service's HeapAlloc is read just before the snap and again just after,
# with no collection in between (run_case): goheap's must be within 10% of
# one of them, or between them.
analyse() { # summary.json top.json metric(or "") expected_exe metric_after -> one TSV row's checks
  python3 - "$@" <<'EOF'
import json, sys
summ_path, top_path, metric, exe, after = sys.argv[1:6]
s = json.load(open(summ_path)); t = json.load(open(top_path))
o = s["objects"]; reach = o["reachable_bytes"]
ty = s.get("types") or {}
typed = ty.get("typed_reachable_bytes", 0); inferred = ty.get("inferred_reachable_bytes", 0)
typed_pct = 100.0 * typed / reach if reach else 0.0
inf_pct = 100.0 * inferred / reach if reach else 0.0
fails = []
ex = s.get("executable") or {}
if not ex.get("used"):
    fails.append("executable not used: %s" % ex.get("problem", "no executable found through the core"))
elif exe and ex.get("path") != exe:
    fails.append("executable %s, expected %s" % (ex.get("path"), exe))
if typed_pct < 95:
    fails.append("typed %.1f%% < 95%%" % typed_pct)
rows = t["rows"][:10]
non = ["%s (%s, %.1f MiB)" % (r["name"], r["source"], r["retained"] / 1048576) for r in rows if r["source"] != "type"]
if non:
    fails.append("top-10 not all Go types: %d rows" % len(non))
ms = s.get("memstats")
ha = ms["heap_alloc"] if ms else None
if metric:
    m = int(metric)
    if ha is None:
        why = [w for w in s.get("warnings", []) if "memstats" in w]
        fails.append("HeapAlloc: none, goheap says: " + (why[0] if why else "(no warning; summary's memstats is null)"))
    else:
        # The heap moves between the reading before the snap and the one
        # after (a GC may run): within 10% of either, or between them.
        readings = [m] + ([int(after)] if after else [])
        near = any(abs(ha - r) <= 0.10 * r for r in readings) or min(readings) <= ha <= max(readings)
        if not near:
            fails.append("HeapAlloc %d vs service %d (%+.1f%%)" % (ha, m, 100.0 * (ha - m) / m))
def mib(n): return "%.1f" % (n / 1048576)
print("\t".join([
    mib(reach), "%.1f" % typed_pct, "%.1f" % inf_pct,
    (mib(ha) if ha is not None else "none") + " / " + (mib(int(metric)) if metric else "-")
        + (" (after " + mib(int(after)) + ")" if after else ""),
    mib(o["bytes"]),
    "yes" if not non else "no: " + "; ".join(non),
    "ok" if not fails else "FAIL: " + "; ".join(fails),
    s.get("go_version", ""), ty.get("source", "none"), str(ty.get("conflicts", "")),
]))
EOF
}

run_case() { # suite service
  local suite=$1 svc=$2 pkg root exe dir ver gover ext stripped metric="" metric_after="" row rc core
  pkg=$(package_of "$svc")
  root="$SERVICES_DIR/$suite/$pkg"
  dir="$work/$suite-$svc"; mkdir -p "$dir"
  local out="$RESULTS_DIR/$suite-$svc"; mkdir -p "$out"
  svc_pid=""; snap_pid=""; holder_pid=""; metrics_url=""; metrics_args=(); base=""; port=""
  if ! unpack "$suite" "$pkg"; then
    printf '%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\tFAIL: no %s in Debian %s\n' "$suite" "$svc" "$pkg" "$suite" >>"$table"
    return 0
  fi
  exe="$root/$(binary_of "$svc")"
  ver=$(cat "$root/.deb-version")
  gover=""
  if [ -n "$GO" ]; then gover=$("$GO" version -m "$exe" 2>/dev/null | awk 'NR==1 {print $2}') || true; fi
  if [ -z "$gover" ]; then
    gover=$("$GOHEAP" bin --json "$exe" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["go_version"])') || gover="?"
  fi
  # The crt files' .init and .note.ABI-tag: only an external linker puts them in.
  if readelf -SW "$exe" | awk '{for (i = 1; i <= NF; i++) if ($i == ".init" || $i == ".note.ABI-tag") f = 1} END {exit !f}'; then
    ext=yes; else ext=no; fi
  case $(file -b "$exe") in *", not stripped"*) stripped=no ;; *", stripped"*) stripped=yes ;; *) stripped="?" ;; esac
  log "== $suite $svc: $pkg $ver, $gover, linked externally: $ext, stripped: $stripped"

  local fail="" attempt started=no
  for attempt in 1 2 3; do
    svc_pid=""; snap_pid=""
    if "start_$svc" "$root" "$dir"; then started=yes; break; fi
    [ -n "$svc_pid" ] && stop_pid "$svc_pid"
    grep -q 'address already in use' "$dir/service.log" 2>/dev/null || break
    log "$svc: a port was taken meanwhile; starting it again on other ports"
    rm -rf "$dir"; mkdir -p "$dir"
  done
  if [ $started = no ]; then
    fail="$svc did not start: $(tail -5 "$dir/service.log" 2>/dev/null | tr '\n' ' ')"
  else
    snap_pid=${snap_pid:-$svc_pid}
    "load_$svc" "$dir" || log "$svc: load failed"
    if ! kill -0 "$snap_pid" 2>/dev/null; then
      fail="$svc died under load: $(tail -5 "$dir/service.log" | tr '\n' ' ')"
    fi
  fi
  if [ -z "$fail" ]; then
    if [ -n "$metrics_url" ]; then
      # A service goes on working after its load (alertmanager dispatches
      # the alerts it was sent) and its collector runs: wait, up to 15 s,
      # until two readings half a second apart agree within 2%, so that the
      # snap sees the heap the reading saw.
      local previous="" tries=0
      metric=$(heap_alloc_metric "$metrics_url" "${metrics_args[@]}") || metric=""
      while [ -n "$metric" ] && [ $tries -lt 30 ]; do
        if [ -n "$previous" ] && python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(a - b) > 0.02 * max(a, b))" "$previous" "$metric"; then
          break
        fi
        previous=$metric
        sleep 0.5
        tries=$((tries + 1))
        metric=$(heap_alloc_metric "$metrics_url" "${metrics_args[@]}") || metric=""
      done
      [ -n "$metric" ] || log "$svc: $metrics_url has no go_memstats_heap_alloc_bytes"
    fi
    core="$dir/$svc.core"
    # The services with metrics run with GODEBUG=gctrace=1, which logs a
    # line per collection: a collection between the reading before the
    # snap and the one after moves the heap (alertmanager's by 20-40%: each
    # scrape of its /metrics allocates megabytes), so such a snap is taken
    # again, up to 5 times. Without one, HeapAlloc only grows from the
    # first reading to the second, and the snapped heap is between them.
    local attempt=1 gcs_before gcs_after
    while :; do
      gcs_before=$(grep -c '^gc [0-9]' "$dir/service.log" || true)
      if [ -n "$metric" ]; then
        metric=$(heap_alloc_metric "$metrics_url" "${metrics_args[@]}") || metric=""
      fi
      rc=0
      timeout 300 "$GOHEAP" snap "$snap_pid" -o "$core" --no-exe-copy --no-progress >"$out/snap.out" 2>"$out/snap.err" || rc=$?
      if [ $rc != 0 ]; then
        fail="goheap snap $snap_pid -o $core failed (exit $rc): $(tr '\n' ' ' <"$out/snap.err")"
      fi
      cat "$out/snap.out" >&2
      if [ -n "$metric" ]; then metric_after=$(heap_alloc_metric "$metrics_url" "${metrics_args[@]}") || metric_after=""; fi
      gcs_after=$(grep -c '^gc [0-9]' "$dir/service.log" || true)
      if [ -n "$fail" ] || [ -z "$metric" ] || [ "$gcs_before" = "$gcs_after" ] || [ $attempt -ge 5 ]; then
        [ -n "$metric" ] && [ "$gcs_before" != "$gcs_after" ] &&
          log "$svc: a collection ran during each of $attempt snaps; comparing the last"
        break
      fi
      log "$svc: $((gcs_after - gcs_before)) collection(s) between the readings and the snap; snapping again"
      rm -f "$core"
      attempt=$((attempt + 1))
    done
  fi
  [ -n "${holder_pid:-}" ] && stop_pid "$holder_pid"
  [ -n "${svc_pid:-}" ] && stop_pid "$svc_pid"
  if [ -n "${snap_pid:-}" ] && [ "$snap_pid" != "$svc_pid" ]; then stop_pid "$snap_pid"; fi
  cp "$dir/service.log" "$out/service.log" 2>/dev/null || true
  [ -f "$dir/load.log" ] && cp "$dir/load.log" "$out/load.log"

  if [ -z "$fail" ]; then
    log "goheap summary $core --json; goheap top $core --by type -n 10 --json"
    rc=0
    timeout 900 "$GOHEAP" summary "$core" --json --no-cache --no-progress >"$out/summary.json" 2>"$out/summary.err" || rc=$?
    if [ $rc != 0 ]; then
      fail="goheap summary $core --json failed (exit $rc): $(grep -v '^goheap: note' "$out/summary.err" | tr '\n' ' ')"
    else
      timeout 900 "$GOHEAP" top "$core" --by type --sort retained -n 10 --json --no-cache --no-progress >"$out/top.json" 2>"$out/top.err" || rc=$?
      if [ $rc != 0 ]; then
        fail="goheap top $core --by type -n 10 --json failed (exit $rc): $(grep -v '^goheap: note' "$out/top.err" | tr '\n' ' ')"
      fi
    fi
  fi
  if [ -z "$fail" ]; then
    row=$(analyse "$out/summary.json" "$out/top.json" "$metric" "$exe" "$metric_after") || fail="could not read goheap's JSON"
  fi
  [ -n "$fail" ] && row=$(printf -- '-\t-\t-\t-\t-\t-\tFAIL: %s\t%s\t-\t-' "$fail" "$gover")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$suite" "$svc" "$ver" "$gover" "$ext" "$stripped" "$row" >>"$table"
  case $row in
    *FAIL:*) log "$suite $svc: $(echo "$row" | awk -F'\t' '{print $7}')"
      if [ -n "$KEEP_DIR" ] && [ -f "${core:-}" ] && [ "$kept" -lt "$KEEP_MAX" ]; then
        mkdir -p "$KEEP_DIR"
        mv "$core" "$KEEP_DIR/$suite-$svc.core"
        cp "$exe" "$KEEP_DIR/$suite-$svc.exe"
        kept=$((kept + 1))
        log "kept $KEEP_DIR/$suite-$svc.core ($(du -h "$KEEP_DIR/$suite-$svc.core" | cut -f1)) and its executable $KEEP_DIR/$suite-$svc.exe"
      fi ;;
    *) log "$suite $svc: ok" ;;
  esac
  rm -f "${core:-}"
  rm -rf "$dir"
}

# ---------------------------------------------------------------- main

log "goheap: $GOHEAP; packages in $SERVICES_DIR; results in $RESULTS_DIR"
for suite in $SUITES; do
  for svc in $SERVICES; do
    run_case "$suite" "$svc"
  done
done

elapsed=$(( $(date +%s) - start_time ))
python3 - "$table" "$elapsed" <<'EOF'
import sys
head = ["suite", "service", "package", "Go", "ext.link", "stripped", "reach MiB", "typed %", "inferred %",
        "HeapAlloc MiB goheap / service", "all objs MiB", "top-10 Go types", "result"]
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
cells = [r[:11] + [r[11] if r[11].startswith("yes") or r[11] == "-" else "no", r[12].split(":")[0]] for r in rows]
w = [max(len(str(c[i])) for c in [head] + cells) for i in range(len(head))]
print()
for c in [head] + cells:
    print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(c)).rstrip())
print()
for r in rows:
    if r[12] != "ok" or not r[11].startswith("yes"):
        print("%s %s:" % (r[0], r[1]))
        if r[11].startswith("no: "):
            print("  non-type rows in the top 10: " + r[11][4:])
        if r[12] != "ok":
            print("  " + r[12])
fails = sum(1 for r in rows if r[12] != "ok")
print("\n%d of %d cases passed in %d s" % (len(rows) - fails, len(rows), int(sys.argv[2])))
EOF
log "per-case logs and JSON: $RESULTS_DIR"
if grep -q $'\tFAIL: ' "$table"; then exit 1; fi
