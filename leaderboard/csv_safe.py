"""CSV cells that a spreadsheet will not run: text starting with ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return is prefixed with ``'`` (OWASP's CSV-injection advice); numbers,
including negative ones, stay numbers. Every CSV the site writes goes through
:func:`writer`."""

from __future__ import annotations

import csv
import re

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def neutralise(value):
    """``value`` as a safe CSV cell (non-strings are returned unchanged)."""
    if not isinstance(value, str) or not value.startswith(TRIGGERS) or NUMBER.match(value):
        return value
    return "'" + value


class SafeWriter:
    """``csv.writer`` whose rows are neutralised cell by cell."""

    def __init__(self, stream, **kwargs):
        self._writer = csv.writer(stream, **kwargs)

    def writerow(self, row):
        return self._writer.writerow([neutralise(cell) for cell in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(stream, **kwargs) -> SafeWriter:
    return SafeWriter(stream, **kwargs)
