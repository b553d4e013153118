#!/usr/bin/env bash
# Builds the seeds' selection code -- freuk/ocst at its "zenodo-up" tag (9f6d02f,
# 2017-04-02: the release online-bandit cites, "freuk/ocst: Bandit policy selection
# paper release (March 2017)", with its bandit-onpolicy and bandit-random commands)
# against the authors' bandit library freuk/obandit as it stood then (42766b8,
# 2017-03-23, "add zenodo doi") -- into build/oracles/ocst-selection/, as the oracle
# of the selection study (tools/oracles/ocst_selection.py).  Nothing of either is
# copied into this repository: both trees are taken from git copies into build/.
#
# The one change in the build copy: ocst's _tags asks for the findlib package
# `obandit` (an opam package Debian does not have); the build instead compiles
# obandit's own src/obandit.ml(i) of that commit as a module of the build (directory
# obandit/, `-I obandit`) and asks for `batteries`, which obandit's META required.
# No source file of ocst is edited.
#
#   OCST_SRC=<git dir of freuk/ocst>       (default /work/.mirror/freuk+ocst/repo)
#   OBANDIT_SRC=<git dir of freuk/obandit> (default /work/.mirror/freuk+obandit/repo)
#
# Exit status: 0 built (or already built); 3 a source unavailable; 4 OCaml toolchain
# missing (Debian: ocaml-nox ocaml-findlib ocamlbuild libbatteries-ocaml-dev
# libcmdliner-ocaml-dev); 5 build failed (log: build/oracles/ocst-selection/build.log).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OCST_COMMIT=9f6d02fca8720b19f0aad8e86da3ddfb439acb1f      # tag zenodo-up, 2017-04-02 "fix noisy"
OBANDIT_COMMIT=42766b8                                    # 2017-03-23 "add zenodo doi"
OCST_SRC=${OCST_SRC:-/work/.mirror/freuk+ocst/repo}
OBANDIT_SRC=${OBANDIT_SRC:-/work/.mirror/freuk+obandit/repo}
OUT=$ROOT/build/oracles/ocst-selection
SRC=$OUT/src
BIN=$OUT/ocs
STAMP=$OUT/BUILD.json

if [ -x "$BIN" ] && [ -f "$STAMP" ] && grep -q "\"commit\": \"$OCST_COMMIT\"" "$STAMP"; then
    echo "ocst-selection: already built at $OCST_COMMIT: $BIN"; exit 0
fi
for d in "$OCST_SRC" "$OBANDIT_SRC"; do
    if ! git --git-dir="$d" rev-parse -q --verify HEAD >/dev/null 2>&1; then
        echo "ocst-selection: source unavailable: $d is not a git directory (OCST_SRC / OBANDIT_SRC)" >&2; exit 3
    fi
done
for t in ocamlfind ocamlbuild; do
    command -v $t >/dev/null 2>&1 || { echo "ocst-selection: $t missing (apt-get install ocaml-nox ocaml-findlib ocamlbuild libbatteries-ocaml-dev libcmdliner-ocaml-dev)" >&2; exit 4; }
done
for p in batteries cmdliner; do
    ocamlfind query $p >/dev/null 2>&1 || { echo "ocst-selection: findlib package $p missing" >&2; exit 4; }
done
start=$(date +%s)
rm -rf "$SRC" && mkdir -p "$SRC/obandit"
git --git-dir="$OCST_SRC" archive "$OCST_COMMIT" | tar -x -C "$SRC" || exit 3
git --git-dir="$OBANDIT_SRC" archive "$OBANDIT_COMMIT" src/obandit.ml src/obandit.mli | tar -x -C "$SRC/obandit" || exit 3
mv "$SRC/obandit/src/"* "$SRC/obandit/" && rmdir "$SRC/obandit/src"
grep -q '^true : package(obandit)$' "$SRC/_tags" || { echo "ocst-selection: _tags has no package(obandit) line (not $OCST_COMMIT?)" >&2; exit 2; }
sed -i 's/^true : package(obandit)$/true : package(batteries)/' "$SRC/_tags"
if ! (cd "$SRC" && ocamlbuild -use-ocamlfind -I obandit src/simulator.native src/sampler.native) > "$OUT/build.log" 2>&1; then
    echo "ocst-selection: build failed; last lines of $OUT/build.log:" >&2; tail -n 20 "$OUT/build.log" >&2; exit 5
fi
cp -L "$SRC/simulator.native" "$BIN"
cp -L "$SRC/sampler.native" "$OUT/ocs-sampler"
end=$(date +%s)
cat > "$STAMP" <<JSON
{"commit": "$OCST_COMMIT", "obandit_commit": "$(git --git-dir="$OBANDIT_SRC" rev-parse $OBANDIT_COMMIT)",
 "ocaml": "$(ocamlfind ocamlopt -version)", "ocs_sha256": "$(sha256sum "$BIN" | cut -d' ' -f1)",
 "build_seconds": $((end - start)), "built": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"}
JSON
echo "ocst-selection: built $BIN in $((end - start)) s"
