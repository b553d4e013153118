#!/usr/bin/env python3
"""Patch a checked-out copy of freuk/ocst (in build/, never in this repository) so
that it builds from Debian's OCaml packages, which have neither ZMQ bindings nor
ppx_deriving_protobuf.

Usage: patch_ocst.py SRC_DIR     (edits SRC_DIR in place; idempotent)

Every edit removes code that only the simulator's server mode needs: the
`contextual` sub-command, whose primary policy asks an external process over a
ZMQ socket which criterion to use (features sent and the pick received as
protobuf messages).  The edits, line by line:

  _tags           delete `true : package(ZMQ)` and `true : package(ppx_deriving_protobuf)`
                  (the two libraries Debian does not package).
  src/easy.ml     in `MakeHysteresisPrimary`, delete the suffix `[@@deriving protobuf {protoc}]`
                  of `type features = ...` and `type pick = ...` (the types stay; the derived
                  (de)serialisers were never called there);
                  delete the whole `module MakeContextualPrimary ... end` (from its first line
                  to the line before `module type OocvxParam`): its body is the ZMQ/protobuf
                  exchange.  The signature `module type ContextualParam` stays (unused).
  src/simulate.ml delete the function `let contextual copts period policies ipc= ...`
                  (up to the line before `let hysteresis`), the only user of that module.
  src/simulator.ml delete `let contextual_cmd = ...` (up to the line before
                  `let printstate_cmd`) and its name in `let cmds = [...]`.

Why no schedule can change: the `fixed` and `mixed` sub-commands (the ones the
comparison runs) build their scheduler from MakeThreshold, MakeGreedyPrimary /
MakeProbabilisticPrimary, MakeGreedySecondary and MakeEasyScheduler, none of which
refers to anything deleted; the deleted module is instantiated only by
`Simulate.contextual`, reachable only from the `contextual` command line.  The
protobuf attributes only generated functions that nothing calls.  OCaml would refuse
to compile if any remaining code still referred to a deleted name.

Exit status: 0 patched (or already patched), 2 the source does not look like the
pinned commit (an edit's anchor is missing): the message names the file and anchor.
"""
from __future__ import annotations

import sys
from pathlib import Path

MARK = "(* schedlab: patched by tools/oracles/patch_ocst.py *)\n"


class AnchorMissing(Exception):
    pass


def _cut_block(text: str, start: str, stop: str, where: str) -> str:
    """Remove the lines from the one starting with `start` up to (not including)
    the one starting with `stop`."""
    lines = text.splitlines(keepends=True)
    i = next((k for k, ln in enumerate(lines) if ln.startswith(start)), None)
    if i is None:
        raise AnchorMissing(f"{where}: no line starting with {start!r}")
    j = next((k for k in range(i + 1, len(lines)) if lines[k].startswith(stop)), None)
    if j is None:
        raise AnchorMissing(f"{where}: no line starting with {stop!r} after {start!r}")
    return "".join(lines[:i] + lines[j:])


def _replace(text: str, old: str, new: str, where: str, count: int) -> str:
    n = text.count(old)
    if n != count:
        raise AnchorMissing(f"{where}: expected {count} occurrence(s) of {old!r}, found {n}")
    return text.replace(old, new)


def patch(src: Path) -> bool:
    """Apply the edits; return False if the copy was already patched."""
    easy = src / "src" / "easy.ml"
    if easy.read_text().startswith(MARK):
        return False
    tags = src / "_tags"
    t = tags.read_text()
    t = _replace(t, "true : package(ZMQ)\n", "", "_tags", 1)
    t = _replace(t, "true : package(ppx_deriving_protobuf)\n", "", "_tags", 1)
    tags.write_text(t)

    e = easy.read_text()
    e = _replace(e, " [@@deriving protobuf {protoc}]", "", "src/easy.ml", 4)
    e = _cut_block(e, "module MakeContextualPrimary", "module type OocvxParam", "src/easy.ml")
    if "ZMQ" in e or "Protobuf" in e:
        raise AnchorMissing("src/easy.ml: ZMQ or Protobuf still referenced after the edits")
    easy.write_text(MARK + e)

    sim = src / "src" / "simulate.ml"
    s = _cut_block(sim.read_text(), "let contextual copts", "let hysteresis", "src/simulate.ml")
    sim.write_text(s)

    cli = src / "src" / "simulator.ml"
    c = _cut_block(cli.read_text(), "let contextual_cmd", "let printstate_cmd", "src/simulator.ml")
    c = _replace(c, "mixed_cmd; contextual_cmd; printstate_cmd", "mixed_cmd; printstate_cmd",
                 "src/simulator.ml", 1)
    cli.write_text(c)
    return True


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: patch_ocst.py SRC_DIR", file=sys.stderr)
        return 64
    src = Path(argv[1])
    try:
        changed = patch(src)
    except (AnchorMissing, FileNotFoundError) as exc:
        print(f"patch_ocst: {exc} (is {src} freuk/ocst at the pinned commit?)", file=sys.stderr)
        return 2
    print("patch_ocst: " + ("patched " if changed else "already patched ") + str(src))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
