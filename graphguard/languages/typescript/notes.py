"""What a TypeScript/JavaScript file says about its own call sites (check/suppress reads it, as Python's notes). Pure.

    // @ts-expect-error                     tsc reports nothing on the next line: the author expects an error there
    f(1);                                   (a test of a wrong call), so breaking it is no news the compiler gives
    // @ts-ignore                           the same
    {/* @ts-expect-error */}                the same, in JSX
    f(1); // graphguard: ignore[new-calls]  this site, for these codes (bare: all)

A directive silences every error of its line, not only a call's: an import of a name no longer exported is silent
there too. Read by lines from the bytes being checked; a directive inside a string is taken for one (rare, and it
only turns a blamed site into an ignored one, said so).
"""

from __future__ import annotations

import re
from collections import defaultdict

from graphguard.languages.python.notes import Ignore, Notes, split_codes

#: A line that is a compiler directive: the next line's errors are not reported (TypeScript's commentDirectiveRegEx,
#: at the start of the line as people write it).
_DIRECTIVE = re.compile(rb"\s*\{?\s*(?://|/\*)\s*(@ts-(?:expect-error|ignore))\b")
_GRAPHGUARD_IGNORE = re.compile(r"(?://|/\*)\s*graphguard:\s*ignore\b(?:\[([^\]]*)\])?")


def notes(data: bytes) -> Notes:
    """The ignores of one file: `// graphguard: ignore` on a site's lines, a compiler directive on the line before."""
    graphguard: dict[int, list[Ignore]] = defaultdict(list)
    silenced: dict[int, list[Ignore]] = defaultdict(list)
    if b"@ts-" not in data and b"graphguard" not in data:
        return Notes({}, {}, ())
    for number, line in enumerate(data.splitlines(), start=1):
        directive = _DIRECTIVE.match(line)
        if directive is not None:
            silenced[number + 1].append(Ignore(number, "// " + directive.group(1).decode(), None))
        if b"graphguard" in line:
            text = line.decode("utf-8", "replace")
            for m in _GRAPHGUARD_IGNORE.finditer(text):
                graphguard[number].append(Ignore(number, m.group(0), split_codes(m.group(1))))
    return Notes(dict(graphguard), {}, (), dict(silenced))
