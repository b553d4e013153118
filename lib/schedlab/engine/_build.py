"""cffi builder for the C core (API mode, out-of-line).

Run by ``pip install`` through ``setup.py`` (``cffi_modules``).  The cdef is
``csrc/schedlab.h`` read verbatim, minus its preprocessor lines: the header is
the contract.  ``python lib/schedlab/engine/_build.py --sanitize OUTDIR`` builds an
ASan/UBSan copy of the module for ``make test-asan``.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parents[3]
CSRC = ROOT / "csrc"
SOURCES = ["base.c", "engine.c", "machine.c", "easy.c", "policies.c", "queue.c", "multiqueue.c", "learned.c", "multi.c", "expr.c", "tour.c", "dispatch.c",
           "schedgym.c", "venv.c"]
WARNINGS = ["-Wall", "-Wextra", "-Wconversion", "-Wshadow", "-Wno-unused-parameter"]


# Python implementations of the callback estimator (schedlab.engine.sim).
PYTHON_CALLBACKS = """
extern "Python" int64_t sl_py_predict(void *, int32_t, int64_t);
extern "Python" void sl_py_observe(void *, int32_t, int64_t, int64_t);
extern "Python" int sl_py_keys(void *, const int32_t *, int32_t, int64_t, double *);
extern "Python" int sl_py_multi(void *, const int32_t *, int32_t, const int64_t *, const int64_t *, const uint8_t *);
"""


def c_code_text(text: str) -> str:
    """C source ``text`` without its comments, each run of white space one
    blank: what the compiler reads, up to layout.  String and character
    literals are kept as written (a ``/*`` inside one is not a comment).
    A comment becomes one blank, as the C standard has it (``a/**/b`` is
    two tokens)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            out.append(" ")
        else:
            out.append(c)
            i += 1
    return " ".join("".join(out).split())


def source_hash() -> str:
    """sha256 (16 hex digits) of every C source, header and table (.def), up to comments
    and layout (:func:`c_code_text`), compiled into the core
    (``sl_source_hash``) so that campaign cache keys change with the C code
    -- and not with a comment."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted([*CSRC.glob("*.[ch]"), *CSRC.glob("*.def")]):
        h.update(f.name.encode() + b"\0" + c_code_text(f.read_text(encoding="utf-8")).encode() + b"\0")
    return h.hexdigest()[:16]


def cdef_text() -> str:
    lines = (CSRC / "schedlab.h").read_text().splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("#"))


def make_builder(sanitize: bool = False) -> FFI:
    ffi = FFI()
    ffi.cdef(cdef_text() + PYTHON_CALLBACKS)
    # -ffp-contract=off: no fused multiply-add, so that the learned estimator
    # (learned.c) computes the same bits as its Python reference.
    cflags = ["-std=c11", "-O3", "-ffp-contract=off", "-fno-math-errno"] + WARNINGS
    ldflags: list[str] = []
    if sanitize:
        san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g", "-O1"]
        cflags += san
        ldflags += san
    else:
        # The core as one optimisation unit: its functions are not exported
        # (cffi's module init is), so calls between csrc files are bound
        # directly and may be inlined (callgrind, bench_queue bursts of
        # 20,000 jobs: 0.7-2 % fewer instructions).  The link repeats the
        # floating-point flags, under which the link-time optimiser compiles.
        cflags += ["-flto=auto", "-fvisibility=hidden"]
        ldflags += ["-flto=auto", "-fvisibility=hidden", "-O3", "-ffp-contract=off", "-fno-math-errno"]
    ffi.set_source(
        "schedlab.engine._core",
        '#include <stdint.h>\n#include <stddef.h>\n#include "schedlab.h"\n',
        sources=[os.path.relpath(CSRC / s, Path.cwd()) if not sanitize else str(CSRC / s) for s in SOURCES],
        include_dirs=[str(CSRC)],
        extra_compile_args=cflags,
        extra_link_args=ldflags,
        # SL_CHECKED: the checked core (csrc/internal.h, SL_CHECK) in the sanitised build
        define_macros=[("SL_SOURCE_HASH", f'"{source_hash()}"')] + ([("SL_CHECKED", "1")] if sanitize else []),
    )
    return ffi


ffibuilder = make_builder()

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--sanitize":
        out = Path(sys.argv[2]) / "schedlab" / "engine"
        out.mkdir(parents=True, exist_ok=True)
        make_builder(sanitize=True).compile(tmpdir=str(out.parents[1]), verbose=True)
    else:
        ffibuilder.compile(verbose=True)
