"""Numbers, dates and times as the current locale writes them (1,200 in English, 1.200 in
German), through Babel."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from babel import Locale, dates, lists, numbers

from bot.i18n import current_locale


def number(n: int | float | Decimal) -> str:
    return numbers.format_decimal(n, locale=current_locale())


def decimal(x: float | Decimal, digits: int = 1) -> str:
    """`x` with exactly `digits` decimals (3.5, 3,5)."""
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return numbers.format_decimal(x, format=pattern, locale=current_locale())


def percent(fraction: float | Decimal) -> str:
    """0.25 -> "25%" ("25 %" in German)."""
    return numbers.format_percent(fraction, locale=current_locale())


def date(d: dt.date) -> str:
    return dates.format_date(d, format="medium", locale=current_locale())


def datetime(moment: dt.datetime, tz: dt.tzinfo) -> str:
    """`moment` (aware) as a reader in `tz` reads it: the date, and the time to the minute."""
    locale = Locale.parse(current_locale())
    local = moment.astimezone(tz)
    pattern = str(locale.datetime_formats["medium"])  # "{1}, {0}": the date, then the time
    return pattern.format(
        dates.format_time(local, format="short", locale=locale),
        dates.format_date(local, format="medium", locale=locale),
    )


def time(t: dt.time | dt.datetime) -> str:
    return dates.format_time(t, format="short", locale=current_locale())


def short_month(d: dt.date) -> str:
    """`d`'s month, abbreviated and standing alone, as over a calendar's column ("Mar", "März")."""
    return dates.format_date(d, format="LLL", locale=current_locale())


def short_weekday(d: dt.date) -> str:
    """`d`'s weekday, abbreviated and standing alone, as beside a calendar's row ("Mon", "Mo")."""
    return dates.format_date(d, format="ccc", locale=current_locale())


def pattern_date(d: dt.date, pattern: str) -> str:
    """`d` (a date, or an aware datetime in the reader's zone) in a CLDR `pattern` that a
    catalog gives ("EEE dd MMM y"); a pattern Babel cannot read falls back to the medium
    date: a translator's slip costs the format, not the message."""
    try:
        if not pattern.strip():
            raise ValueError("an empty pattern")
        if isinstance(d, dt.datetime):
            return dates.format_datetime(d, pattern, tzinfo=d.tzinfo, locale=current_locale())
        return dates.format_date(d, format=pattern, locale=current_locale())
    except Exception:  # Babel raises what its parser meets (KeyError, AttributeError, ...)
        return date(d)


def and_list(items: Sequence[str]) -> str:
    """`items` joined as the current locale lists them: "[1] and [2]", "[1], [2] und [3]"."""
    return lists.format_list(list(items), locale=current_locale())
