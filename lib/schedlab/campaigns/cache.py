"""The cells' cache: one file per cell under a key of its inputs
(:meth:`schedlab.campaigns.spec.Campaign.key`: cell function, parameters,
trace sha256, code fingerprint of the simulator), written atomically by the
client as soon as the result arrives: a re-run computes only what is missing,
and a run killed halfway resumes without losing or duplicating a cell.  Each
entry carries a checksum of its key and content: a corrupt or altered entry
is recomputed, with a :class:`CacheWarning` naming it."""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..files import atomic
from .spec import check_name


class CacheWarning(UserWarning):
    """A cache entry could not be read or failed its checksum: it was
    removed and its cell is recomputed."""


class Cache:
    """One .npz file per cell, under ``root/<campaign>/<key[:2]>/<key>.npz``;
    written atomically, so a file is either complete or absent.  Each entry
    holds the sha256 of its key and content, checked on every read: an entry
    truncated, garbled or altered after it was written (by a disk, a copy or
    a hand) is never used; :meth:`load` warns (:class:`CacheWarning`, naming
    the file), removes it, and the cell is computed again.  (The checksum
    guards against accidents, not against someone who rewrites it too.)"""

    def __init__(self, root, campaign: str):
        root = Path(root)
        self.dir = root / check_name(campaign)
        if os.path.dirname(os.path.normpath(self.dir)) != os.path.normpath(root):   # cannot happen
            raise InputError(f"campaign {campaign!r}: cache directory {self.dir} outside {root}")

    def path(self, key: str) -> Path:
        if not (isinstance(key, str) and len(key) == 64 and all(c in "0123456789abcdef" for c in key)):
            raise InputError(f"cache key must be 64 hex digits (a sha256), got {key!r}")
        return self.dir / key[:2] / f"{key}.npz"

    def has(self, key: str) -> bool:
        """Whether an entry exists (unchecked: :meth:`load` checks it)."""
        return self.path(key).exists()

    @staticmethod
    def _digest(key: str, dims: str, arrays: dict) -> str:
        h = hashlib.sha256(b"schedlab-cache-1\0" + key.encode() + b"\0" + dims.encode("utf-8", "surrogatepass"))
        for name in sorted(arrays):
            a = np.ascontiguousarray(arrays[name])
            h.update(f"\0{name}\0{a.dtype.str}\0{a.shape}\0".encode())
            h.update(a.tobytes())
        return h.hexdigest()

    def put(self, key: str, result: dict) -> None:
        p = self.path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f"v_{k}": np.asarray(v) for k, (dims, v) in result.items()}
        for name, a in arrays.items():
            if a.dtype.hasobject:
                raise InputError(f"cell output {name[2:]!r} is not numeric (dtype {a.dtype}): cannot cache it")
        dims = json.dumps({k: list(d) for k, (d, _) in result.items()})
        arrays["_dims"] = np.array(dims)
        arrays["_sha256"] = np.array(self._digest(key, dims, {k: v for k, v in arrays.items() if k[:2] == "v_"}))
        with atomic(p, suffix=".tmp.npz") as tmp:
            np.savez(tmp, **arrays)

    def get(self, key: str) -> dict:
        """The entry of ``key``; raises :class:`InputError` naming the file if
        it is unreadable or fails its checksum (FileNotFoundError if absent)."""
        p = self.path(key)
        with open(p, "rb") as fh:   # absent, unreadable (permissions): OSError, not corruption
            try:
                with np.load(fh, allow_pickle=False) as z:
                    names = set(z.files)
                    dims = str(z["_dims"][()])
                    stored = str(z["_sha256"][()])
                    layout = json.loads(dims)
                    if not isinstance(layout, dict) or names != {"_dims", "_sha256"} | {f"v_{k}" for k in layout}:
                        raise ValueError(f"entries {sorted(names)} do not match the declared outputs")
                    arrays = {f"v_{k}": z[f"v_{k}"] for k in layout}
            except Exception as exc:   # zipfile.BadZipFile, EOFError, KeyError, ValueError ...
                raise InputError(f"{p}: unreadable cache entry ({type(exc).__name__}: {exc})") from exc
        if self._digest(key, dims, arrays) != stored:
            raise InputError(f"{p}: cache entry fails its checksum (altered or corrupt)")
        return {k: (tuple(d), arrays[f"v_{k}"]) for k, d in layout.items()}

    def load(self, key: str) -> dict | None:
        """The checked entry of ``key``, or None if there is none or it is
        corrupt (then a :class:`CacheWarning` names the file, which is
        removed so that the cell is computed again)."""
        try:
            return self.get(key)
        except FileNotFoundError:
            return None
        except InputError as exc:
            warnings.warn(f"{exc}: removed, the cell is recomputed", CacheWarning, stacklevel=2)
            try:
                self.path(key).unlink()
            except OSError:
                pass
            return None
