"""Spreadsheet cells that cannot run: OWASP's CSV-injection rule for every CSV the host writes
(`tablebuzz export`, the hub's `/standings.csv`).

A text cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is read as a formula by
Excel, LibreOffice and Google Sheets (`=HYPERLINK(...)`, `-2+3`); `safe_cell` puts a single quote
before it, which the spreadsheets show as text (OWASP, "CSV Injection"). A plain number (`-5`,
`+3`, `-1.5`) is a number, not a formula, and stays as it is; so do ints and floats.
"""

import re

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def safe_cell(value):
    """`value` for a CSV cell: a str that a spreadsheet would run gets a leading `'`; anything
    else is returned unchanged."""
    if isinstance(value, str) and value.startswith(TRIGGERS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_row(row):
    """A list (or a dict's values, as a new dict) with every cell through `safe_cell`."""
    if isinstance(row, dict):
        return {k: safe_cell(v) for k, v in row.items()}
    return [safe_cell(v) for v in row]
