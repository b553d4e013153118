#!/usr/bin/env bash
# Runs COMMAND against a private single-node Slurm started for it, then stops
# every daemon it started, by pid, whatever happens (trap on exit).
#
#   bash tests/cluster/with-slurm.sh COMMAND [ARG...]
#
# What it does, in order:
#   1. needs root (slurmd starts jobs as their user) and, when the Slurm or
#      MUNGE programs are missing, apt-get to install the Debian packages
#      slurm-wlm and munge (apt-get update first; services are not started);
#   2. makes a private state directory (mktemp -d), a MUNGE key of its own and a
#      munged on its own socket; writes slurm.conf there (one node = this
#      host, free ports chosen now, proctrack/linuxproc, select/cons_tres, no
#      accounting database) and starts slurmctld and slurmd with SLURM_CONF
#      pointing at it;
#   3. waits (polling, bounded) until the node is idle, then runs COMMAND with
#      SLURM_CONF and SCHEDLAB_SLURM_STATE exported: sbatch, squeue, scancel
#      and dask-jobqueue reach this cluster and no other;
#   4. on exit (success, failure or signal): cancels the cluster's jobs, kills
#      any process left that carries this SLURM_CONF (job steps, workers),
#      stops slurmd, slurmctld and munged by their pid files, checks that
#      none is left, prints the daemons' logs when anything failed, and
#      removes the state directory (kept with SCHEDLAB_SLURM_KEEP=1).
#
# Environment: SCHEDLAB_SLURM_CPUS (CPUs the node declares, default 4: the
# test runs more single-core workers than this machine has cores),
# SCHEDLAB_SLURM_TIMEOUT (seconds to wait for the cluster, default 60).
set -euo pipefail

log() { echo "with-slurm: $*" >&2; }
die() { log "error: $*"; exit 2; }

[[ $# -ge 1 ]] || { echo "usage: bash $0 COMMAND [ARG...]" >&2; exit 2; }

NEEDED=(munged slurmctld slurmd sbatch squeue scancel scontrol sinfo)
PACKAGES=(slurm-wlm munge)
TIMEOUT=${SCHEDLAB_SLURM_TIMEOUT:-60}
CPUS=${SCHEDLAB_SLURM_CPUS:-4}

# ------------------------------------------------------------- requirements --
if [[ $(id -u) -ne 0 ]]; then
    die "a private Slurm needs root (slurmd runs jobs as their user, munged needs its key owned by root);
  run as root (e.g. sudo make test-cluster), or use a site cluster as the README's
  'On a site cluster' section says."
fi

missing=()
for c in "${NEEDED[@]}"; do command -v "$c" > /dev/null || missing+=("$c"); done
if [[ ${#missing[@]} -gt 0 ]]; then
    command -v apt-get > /dev/null || die "missing ${missing[*]} and no apt-get to install them:
  install Slurm (slurmctld, slurmd, sbatch ...) and MUNGE with this system's package manager."
    log "missing ${missing[*]}: installing ${PACKAGES[*]} with apt-get"
    # Install only: no service may start (a policy-rc.d that refuses, for the
    # duration of the install, unless the system already has one).
    policy_made=
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
        policy_made=1
    fi
    rc=0
    { DEBIAN_FRONTEND=noninteractive apt-get update -q \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"; } \
        > /tmp/schedlab-slurm-apt.log 2>&1 || rc=$?
    [[ -n $policy_made ]] && rm -f /usr/sbin/policy-rc.d
    if [[ $rc -ne 0 ]]; then
        tail -n 30 /tmp/schedlab-slurm-apt.log >&2
        die "apt-get could not install ${PACKAGES[*]} (exit $rc; log above, whole log in /tmp/schedlab-slurm-apt.log)"
    fi
    for c in "${NEEDED[@]}"; do command -v "$c" > /dev/null || die "$c still missing after installing ${PACKAGES[*]}"; done
    rm -f /tmp/schedlab-slurm-apt.log
fi
log "$(slurmctld -V), $(munged -V 2>&1 | head -n 1)"

# ------------------------------------------------------------- state, trap --
STATE=$(mktemp -d /tmp/schedlab-slurm.XXXXXX)
chmod 755 "$STATE"
mkdir -p "$STATE"/{munge,ctld,spool,log,jobs}
chmod 755 "$STATE/munge"   # the socket needs x for all; the key itself is 0400
CONF=$STATE/slurm.conf
failed=1

pid_of() { [[ -s $1 ]] && cat "$1" || true; }

# Processes (other than this shell and its ancestors) whose environment holds
# this cluster's SLURM_CONF: job steps and the dask workers they started.
leftovers() {
    local self=" $$ $BASHPID " p=$$ pids=() f pid
    while [[ $p -gt 1 ]]; do p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 1); self+="$p "; done
    for f in /proc/[0-9]*/environ; do
        pid=${f#/proc/}; pid=${pid%/environ}
        [[ $self == *" $pid "* ]] && continue
        grep -qzxF "SLURM_CONF=$CONF" "$f" 2>/dev/null && pids+=("$pid")
    done
    echo "${pids[@]:-}"
}

stop_pid() {   # NAME PID: TERM, wait up to 10 s, then KILL
    local name=$1 pid=$2 i
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    log "$name (pid $pid) ignored SIGTERM for 10 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
}

print_logs() {
    local f
    for f in "$STATE"/log/*.log "$STATE"/jobs/*; do
        [[ -s $f ]] || continue
        echo "----- ${f#$STATE/} (last 60 lines) -----" >&2
        tail -n 60 "$f" >&2
    done
}

cleanup() {
    local rc=$? i left f pid name daemons jobs
    trap - EXIT INT TERM
    set +e
    [[ $rc -ne 0 || $failed -ne 0 ]] && { log "failed (exit $rc): the cluster's logs follow"; print_logs; }
    if [[ -n $(pid_of "$STATE/slurmctld.pid") ]]; then
        jobs=$(SLURM_CONF=$CONF squeue -h -o %i 2>/dev/null)
        if [[ -n $jobs ]]; then
            log "cancelling jobs left: $(echo $jobs)"
            SLURM_CONF=$CONF scancel $jobs 2>/dev/null
            for i in $(seq 100); do [[ -z $(SLURM_CONF=$CONF squeue -h -o %i 2>/dev/null) ]] && break; sleep 0.1; done
        fi
    fi
    if [[ -s $STATE/log/slurmctld.log ]]; then
        log "Slurm jobs submitted: $(grep -c '_slurm_rpc_submit_batch_job: JobId=' "$STATE/log/slurmctld.log")"
    fi
    daemons=()
    for f in slurmd.pid slurmctld.pid munge/munged.pid; do
        pid=$(pid_of "$STATE/$f"); name=${f#munge/}; name=${name%.pid}
        [[ -n $pid ]] && daemons+=("$pid") && stop_pid "$name" "$pid"
    done
    left=$(leftovers)
    if [[ -n $left ]]; then
        log "stopping processes the cluster's jobs left: $left"
        ps -o pid,ppid,cmd -p "${left// /,}" >&2
        for i in $left; do stop_pid "process" "$i"; done
    fi
    left=$(leftovers)
    for pid in "${daemons[@]}"; do kill -0 "$pid" 2>/dev/null && left+=" $pid"; done
    left=$(echo $left)
    if [[ -n $left ]]; then
        log "error: processes still running with SLURM_CONF=$CONF: $left"
        ps -o pid,ppid,cmd -p "${left// /,}" >&2
        [[ $rc -eq 0 ]] && rc=1
    else
        log "stopped: no daemon, job or worker of this cluster is left (${SECONDS} s in all)"
    fi
    if [[ ${SCHEDLAB_SLURM_KEEP:-0} == 1 ]]; then
        log "state kept in $STATE"
    else
        rm -rf "$STATE"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

fail_start() { log "error: $*"; exit 1; }

wait_for() {   # DESCRIPTION COMMAND...: poll every 0.2 s, at most $TIMEOUT s
    local what=$1 t0=$SECONDS; shift
    until "$@" > /dev/null 2>&1; do
        (( SECONDS - t0 < TIMEOUT )) || fail_start "$what: not after ${TIMEOUT} s"
        sleep 0.2
    done
}

# ------------------------------------------------------------------- munge --
dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$STATE/munge/munge.key"
munged --force --key-file="$STATE/munge/munge.key" --socket="$STATE/munge/munge.socket" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/log/munged.log" \
    --seed-file="$STATE/munge/munged.seed" \
    || fail_start "munged did not start"
wait_for "munged socket" test -S "$STATE/munge/munge.socket"
wait_for "munge round trip" bash -c "munge -S '$STATE/munge/munge.socket' -n | unmunge -S '$STATE/munge/munge.socket'"

# -------------------------------------------------------------- slurm.conf --
read -r CTLD_PORT SLURMD_PORT < <(python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
EOF
)
NODE=$(hostname -s)
MEM_MB=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
cat > "$CONF" <<EOF
# A private single-node Slurm written by tests/cluster/with-slurm.sh.
ClusterName=schedlab-test
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$STATE/munge/munge.socket
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
MailProg=/bin/true
MinJobAge=300
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=schedlab Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$CONF SCHEDLAB_SLURM_STATE=$STATE
log "state $STATE, slurmctld port $CTLD_PORT, slurmd port $SLURMD_PORT, node $NODE ($CPUS CPUs, ${MEM_MB} MB)"

# ------------------------------------------------------------------ daemons --
slurmctld -i || fail_start "slurmctld did not start"
wait_for "slurmctld pid file" test -s "$STATE/slurmctld.pid"
wait_for "slurmctld answering (scontrol ping)" bash -c 'scontrol ping | grep -q UP'
slurmd -N "$NODE" || fail_start "slurmd did not start"
wait_for "slurmd pid file" test -s "$STATE/slurmd.pid"
wait_for "node $NODE idle" bash -c "sinfo -h -n '$NODE' -o %T | grep -qx idle"
log "Slurm up: $(sinfo -h -o '%P %D %T %C' | head -n 1) (partition nodes state cpus A/I/O/T)"

# ------------------------------------------------------------------ command --
# In the background, so that a SIGTERM or SIGINT to this script (a CI
# timeout, Ctrl-C) reaches the trap at once: the command is stopped, then
# the cluster (whatever the command left running carries SLURM_CONF: swept).
"$@" &
child=$!
trap 'log "interrupted: stopping the command (pid $child)"; kill -TERM "$child" 2>/dev/null; wait "$child"; exit 130' INT TERM
rc=0
wait "$child" || rc=$?
failed=$rc
exit "$rc"
