#!/usr/bin/env bash
# Brings gaussier2015's simulator, predictsim (pyss with the paper's predictors), into
# build/oracles/predictsim/, to run as it is under Python 2.7 beside the engine
# (tools/oracles/compare_predictsim.py).  The fork is jad-darrous/predictsim at a pinned
# commit of 2015-07-30: its scheduler runs at every event, unlike algo74/predictsim,
# whose SBACPAD'2022 changes run it at most once per second.  Only its simulator
# (simulation/pyss/src, without the jad/ experiments folder) is extracted; nothing is
# patched, nothing is copied into this repository.
#
# Source: PREDICTSIM_SRC=<a git copy of jad-darrous/predictsim>, else git clone from GitHub.
# Exit status: 0 ready; 3 source unavailable.
set -uo pipefail
cd "$(dirname "$0")/../.."
COMMIT=174c453f60a1604f9471ebbaaaafdc766d59f382   # 2015-07-30 "code refactoring"
URL=https://github.com/jad-darrous/predictsim
OUT=$(pwd)/build/oracles/predictsim
SRC=$OUT/src-$COMMIT
if [ -f "$SRC/run_simulator.py" ]; then echo "predictsim: ready at $COMMIT: $SRC"; exit 0; fi
mkdir -p "$OUT"
gitdir=""
if [ -n "${PREDICTSIM_SRC:-}" ]; then
    for d in "$PREDICTSIM_SRC/.git" "$PREDICTSIM_SRC"; do
        git --git-dir="$d" cat-file -e "$COMMIT^{commit}" 2>/dev/null && gitdir=$d && break
    done
elif [ -d "$OUT/predictsim.git" ] || GIT_TERMINAL_PROMPT=0 timeout 300 git clone -q --bare "$URL" "$OUT/predictsim.git" > "$OUT/clone.log" 2>&1; then
    gitdir=$OUT/predictsim.git
fi
if [ -z "$gitdir" ]; then
    echo "predictsim: source unavailable (commit $COMMIT of $URL: GitHub not reachable and no usable PREDICTSIM_SRC=${PREDICTSIM_SRC:-unset})" >&2
    exit 3
fi
# file by file (a partial copy may lack the large blobs of folders not needed here)
tmp=$(mktemp -d "$OUT/tmp.XXXX")
missing=0
while read -r mode type sha path; do
    rel=${path#simulation/pyss/src/}
    case "$rel" in jad/*|*.pyc|*/.svn/*) continue ;; esac
    mkdir -p "$tmp/$(dirname "$rel")"
    if ! git --git-dir="$gitdir" cat-file blob "$sha" > "$tmp/$rel" 2>/dev/null; then
        missing=$((missing + 1)); rm -f "$tmp/$rel"
    fi
done < <(git --git-dir="$gitdir" ls-tree -r "$COMMIT" simulation/pyss/src | tr '\t' ' ')
for need in run_simulator.py schedulers/easy_backfill_scheduler.py schedulers/simulator.py base/prototype.py; do
    if [ ! -f "$tmp/$need" ]; then
        rm -rf "$tmp"; echo "predictsim: $need missing from the source copy" >&2; exit 3
    fi
done
mv "$tmp" "$SRC"
[ "$missing" = 0 ] || echo "predictsim: $missing files of simulation/pyss/src absent from the copy (not needed to run EASY)"
echo "predictsim: ready at $COMMIT: $SRC"
