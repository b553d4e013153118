#!/usr/bin/env bash
# Builds freuk/ocst (Lelong/Reis' OCaml EASY simulator, the one behind lelong2017,
# the thesis' chapters 4-5 and online-bandit) into build/oracles/ocst/, as a second
# oracle for the engine (tools/oracles/compare_ocst.py).  Nothing of ocst is copied
# into this repository: the source is fetched at a pinned commit into build/, patched
# there by tools/oracles/patch_ocst.py (what and why: that file's docstring and
# csrc/SEMANTICS.md, "Other simulators"), and built with Debian's OCaml.
#
# Source, in this order:
#   OCST_SRC=PATH   a git directory (bare or not) holding the pinned commit, or a
#                   plain directory already holding the tree of that commit;
#   otherwise       git clone https://github.com/freuk/ocst (needs the network).
# Toolchain: ocamlfind, ocamlbuild and the findlib packages batteries, cmdliner,
# sexplib, ppx_sexp_conv, ppx_deriving.std; as root, missing ones are installed with
# apt-get (OCST_APT=0 to forbid that).
#
# Exit status: 0 built (or already built at the pinned commit); 3 source unavailable;
# 4 OCaml toolchain or libraries missing; 5 build failed (log: build/oracles/ocst/build.log);
# 2 the source is not the pinned commit (patch anchors missing).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)

OCST_COMMIT=ec6a9eaf426c3ddb9629f045b58d4c9967b94c60   # 2019-07-22 "Update README.md", master
OCST_URL=https://github.com/freuk/ocst
OUT=$ROOT/build/oracles/ocst
SRC=$OUT/src-$OCST_COMMIT
BIN=$OUT/ocst-simulator
STAMP=$OUT/BUILD.json
APT_PACKAGES="ocaml-nox ocaml-findlib ocamlbuild libbatteries-ocaml-dev libcmdliner-ocaml-dev libsexplib-ocaml-dev libppx-sexp-conv-ocaml-dev libppx-deriving-ocaml-dev"
FINDLIB_PACKAGES="batteries cmdliner sexplib ppx_sexp_conv ppx_deriving.std str unix"

if [ -x "$BIN" ] && [ -f "$STAMP" ] && grep -q "\"commit\": \"$OCST_COMMIT\"" "$STAMP"; then
    echo "ocst: already built at $OCST_COMMIT: $BIN"
    exit 0
fi
start=$(date +%s)
mkdir -p "$OUT"

# ---- source ---------------------------------------------------------------------
rm -rf "$SRC" && mkdir -p "$SRC"
from=""
archive_from() {   # $1: a git directory
    git --git-dir="$1" cat-file -e "$OCST_COMMIT^{commit}" 2>/dev/null &&
        git --git-dir="$1" archive "$OCST_COMMIT" | tar -x -C "$SRC"
}
if [ -n "${OCST_SRC:-}" ]; then
    if [ -d "$OCST_SRC/.git" ] && archive_from "$OCST_SRC/.git"; then from="$OCST_SRC (git)"
    elif [ -f "$OCST_SRC/HEAD" ] && archive_from "$OCST_SRC"; then from="$OCST_SRC (bare git)"
    elif [ -f "$OCST_SRC/src/easy.ml" ] && [ -f "$OCST_SRC/_tags" ]; then
        cp -R "$OCST_SRC/." "$SRC/" && rm -rf "$SRC/.git" && from="$OCST_SRC (plain tree, commit not checked)"
    fi
else
    cache=$OUT/ocst.git
    if [ -d "$cache" ] || GIT_TERMINAL_PROMPT=0 timeout 120 git clone -q --bare "$OCST_URL" "$cache" > "$OUT/clone.log" 2>&1; then
        archive_from "$cache" && from="$OCST_URL"
    fi
fi
if [ -z "$from" ]; then
    rm -rf "$SRC"
    echo "ocst: source unavailable (commit $OCST_COMMIT of $OCST_URL: GitHub not reachable and no usable OCST_SRC=${OCST_SRC:-unset})" >&2
    exit 3
fi
echo "ocst: source $OCST_COMMIT from $from"

# ---- toolchain ------------------------------------------------------------------
missing_tools() {
    local miss=""
    command -v ocamlfind >/dev/null 2>&1 || miss="$miss ocamlfind"
    command -v ocamlbuild >/dev/null 2>&1 || miss="$miss ocamlbuild"
    if command -v ocamlfind >/dev/null 2>&1; then
        for p in $FINDLIB_PACKAGES; do
            ocamlfind query "$p" >/dev/null 2>&1 || miss="$miss $p"
        done
    fi
    echo "$miss"
}
miss=$(missing_tools)
if [ -n "$miss" ] && [ "$(id -u)" = 0 ] && [ "${OCST_APT:-1}" != 0 ]; then
    echo "ocst: installing Debian's OCaml packages (missing:$miss)"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q $APT_PACKAGES > "$OUT/apt.log" 2>&1; then
        apt-get update -q >> "$OUT/apt.log" 2>&1
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $APT_PACKAGES >> "$OUT/apt.log" 2>&1
    fi
    miss=$(missing_tools)
fi
if [ -n "$miss" ]; then
    rm -rf "$SRC"
    echo "ocst: OCaml toolchain incomplete (missing:$miss); install the Debian packages: $APT_PACKAGES" >&2
    exit 4
fi

# ---- patch and build ------------------------------------------------------------
python3 "$ROOT/tools/oracles/patch_ocst.py" "$SRC" || exit 2
echo "ocst: building (ocamlbuild, log in $OUT/build.log)"
if ! (cd "$SRC" && ocamlbuild -use-ocamlfind src/simulator.native src/subtrace.native) > "$OUT/build.log" 2>&1; then
    echo "ocst: build failed; last lines of $OUT/build.log:" >&2
    tail -n 15 "$OUT/build.log" >&2
    exit 5
fi
cp -L "$SRC/simulator.native" "$BIN"
cp -L "$SRC/subtrace.native" "$OUT/ocst-subtrace"
end=$(date +%s)
cat > "$STAMP" <<JSON
{"commit": "$OCST_COMMIT", "source": "$from", "ocaml": "$(ocamlfind ocamlopt -version)",
 "simulator_sha256": "$(sha256sum "$BIN" | cut -d' ' -f1)",
 "build_seconds": $((end - start)), "built": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"}
JSON
echo "ocst: built $BIN in $((end - start)) s"
