"""Every ``compat=`` preset against the library itself, wherever that library imports.

For each preset and each metric name it maps, random seeded data (tied scores, graded
relevance where the library takes it, users whose truth has no relevant item, users with no
truth or no list, lists shorter than k) goes through the library's own metric API and through
``rv.evaluate(..., compat=<preset>)``. The table printed has one line per (preset, metric):

    status  preset  library-version  metric  receval  library  |diff|

``PASS``: ``|diff| <= 1e-9`` (``1e-6`` where the library computes in float32: torchmetrics).
``KNOWN``: a difference the preset documents as not reproduced (its note is printed); known
cases do not count as passes. ``REFUSED``: a name the preset refuses, with its reason, and
receval refuses it with that reason. ``FAIL``: anything else. ``ERROR``: the library is
installed but the check raised. ``UNCHECKED``: an entry of a checked preset that no line
names. A library that does not import is listed with the reason.

One module of ``libs/`` a library (the check of its preset); ``common.py`` holds the data,
the report and the registry. Run with any interpreter that has receval (each library is
imported inside a ``try``)::

    python benchmarks/peers/check_presets.py [--only torchmetrics,rectools]

The exit status is 1 when any line is FAIL or ERROR, or an entry is unchecked.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import libs  # noqa: E402 - the checks, beside this script
from common import CHECKS, PRESETS, NotInstalled, Report  # noqa: E402

for _info in pkgutil.iter_modules(libs.__path__):
    importlib.import_module(f"libs.{_info.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated preset names")
    args = parser.parse_args(argv)
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    report = Report()
    covered = {preset for preset, _, _ in CHECKS}
    for preset, library, fn in CHECKS:
        if only and preset not in only:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn(report)
            except NotInstalled as exc:
                report.missing.append((preset, library, str(exc)))
                continue
            except Exception as exc:  # noqa: BLE001 - reported, and the exit status says so
                tb = traceback.format_exc(limit=-3).strip().splitlines()
                report.errors.append((preset, f"{type(exc).__name__}: {exc} | {tb[-3:]}"))
            report.refusals(preset)
    for preset in PRESETS:
        if preset not in covered and (not only or preset in only):
            report.missing.append((preset, PRESETS[preset].library, "no check written"))
    return report.print()


if __name__ == "__main__":
    sys.exit(main())
