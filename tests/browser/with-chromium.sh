#!/usr/bin/env bash
# Runs COMMAND with Debian's Chromium at hand (make test-browser):
#
#   bash tests/browser/with-chromium.sh COMMAND [ARG...]
#
# When `chromium` is missing it installs Debian's package with apt-get
# (apt-get update first), which needs root, as make test-cluster installs
# Slurm; no browser build is ever downloaded (Playwright is told to use this
# one: SCHEDLAB_CHROMIUM).  COMMAND then starts and stops what it needs itself
# (tests/browser/check_browser.py: JupyterLab and the browser, by pid).
set -euo pipefail

log() { echo "with-chromium: $*" >&2; }

[[ $# -ge 1 ]] || { echo "usage: bash $0 COMMAND [ARG...]" >&2; exit 2; }

CHROMIUM=$(command -v chromium || true)
if [[ -z "$CHROMIUM" ]]; then
    if [[ $(id -u) -ne 0 ]]; then
        log "error: chromium is not installed and installing it needs root (apt-get install chromium)"
        exit 2
    fi
    log "installing Debian's chromium (apt-get) ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core > /dev/null
    CHROMIUM=$(command -v chromium) || { log "error: chromium still missing after apt-get"; exit 2; }
fi
log "$("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
export SCHEDLAB_CHROMIUM="$CHROMIUM"
# Playwright must never fetch a browser of its own
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
exec "$@"
