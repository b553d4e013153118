"""Campaigns: a declared grid of named dimensions, one task per cell on
dask.distributed, one labelled xarray.Dataset as the result.

The modules, bottom up (each imports only those before it; tests/test_layers.py):

* :mod:`.store`: the declared result variables and the netCDF files;
* :mod:`.cells`: the registry of the computations a spec may name (``cell``,
  ``resolve_cell``), the built-in ``simulate`` cell and the input classes the
  studies' cells build on;
* :mod:`.fingerprint`: what a cell's cached result depends on besides its
  parameters (the code it imports, the traces it reads);
* :mod:`.spec`: the campaign spec (``Campaign``), checked key by key, and a
  cell's cache key;
* :mod:`.cache`: the checked per-cell cache;
* :mod:`.assembly`: one Dataset from the cells' results, with its provenance;
* :mod:`.runner`: running campaigns on dask (``run``, ``Runner``).

A study's cells module imports :mod:`.cells` and :mod:`.spec` only, so that
its cache keys (which follow the code a cell imports) do not follow how
campaigns are run, cached or assembled.
"""
