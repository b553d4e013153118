"""The field's formats for schedules: SWF with waits and Batsim's ``jobs.csv``
(read by evalys, the field's plotting library), with a deterministic
processor placement (:mod:`schedlab.workloads.formats.intervals`).

>>> from schedlab.workloads import formats
>>> formats.write(schedule, "jobs.csv", "batsim-csv")        # doctest: +SKIP
>>> back = formats.read("jobs.csv")                           # doctest: +SKIP
"""
from . import intervals
from .schedule import (BATSIM_COLUMNS, FORMATS, ScheduleFile, batsim_rows, from_schedule, read,
                       read_batsim_csv, read_swf_schedule, swf_fields, write, write_batsim_csv, write_swf)

__all__ = ["intervals", "BATSIM_COLUMNS", "FORMATS", "ScheduleFile", "batsim_rows", "from_schedule", "read",
           "read_batsim_csv", "read_swf_schedule", "swf_fields", "write", "write_batsim_csv", "write_swf"]
