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
SOURCES = ["engine.c", "easy.c", "policies.c", "multiqueue.c", "learned.c", "multi.c", "expr.c", "tour.c", "dispatch.c"]
WARNINGS = ["-Wall", "-Wextra", "-Wconversion", "-Wshadow", "-Wno-unused-parameter"]


# Python implementations of the callback estimator (schedlab.engine.sim).
PYTHON_CALLBACKS = """
extern "Python" int64_t sl_py_predict(void *, int32_t, int64_t);
extern "Python" void sl_py_observe(void *, int32_t, int64_t, int64_t);
extern "Python" int sl_py_keys(void *, const int32_t *, int32_t, int64_t, double *);
extern "Python" int sl_py_multi(void *, const int32_t *, int32_t, const int64_t *, const int64_t *, const uint8_t *);
"""


def source_hash() -> str:
    """sha256 (16 hex digits) of every C source and header, compiled into the
    core (``sl_source_hash``) so that campaign cache keys change with the C code."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted(CSRC.glob("*.[ch]")):
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
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
