"""A code-aware tokenizer: identifiers split into words, lowercased, lightly stemmed. Pure.

`parse_cookie`, `parseCookie`, `ParseCookie` and `http.parse_cookie` all give
the words `parse` and `cookie`; an identifier of several words also gives the
words joined (`parsecookie`), so a task that names the identifier exactly
matches it more strongly than one that only shares its words. Plurals fold to
the singular (`cookies` -> `cookie`). English and Python filler words, and bare
numbers, are dropped.

`split_source` cuts a Python file into the text of each definition, by field:
its name, its prose (docstrings, other triple-quoted strings and comments) and
its body (every other identifier and string), each already tokenized. The text
index stores these per blob, so an unchanged blob is never tokenized again.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import NamedTuple

#: Identifiers and words: a run of letters, digits and underscores.
_WORD = re.compile(r"[A-Za-z0-9_]+")
#: camelCase / PascalCase / ACRONYMWord boundaries inside a run without underscores.
_CAMEL = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOPWORDS = frozenset(
    """
    a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it
    its just may me might must my no nor not of on once only or other our out over own same she should so some such
    than that the their them then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your also else each every here more most any all both few
    self cls def return none true false import pass elif lambda yield async await try except finally raise assert
    del global nonlocal class while break continue args kwargs
    """.split()  # noqa: SIM905 - a word list reads best as text
)

#: Longer tokens are hashes, base64 or minified code: not words anyone searches for.
MAX_TOKEN = 40


def stem(word: str) -> str:
    """Fold plurals and a final y/ie the way Porter's stemmer does, so both sides of a match agree:
    `cookies`, `cookie` -> `cooki`; `entries`, `entry` -> `entri`; `headers` -> `header`;
    `classes` -> `class`; `status`, `class`, `key` stay."""
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-2] if len(word) == 4 else word[:-3] + "i"
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 3 and word.endswith("ie"):
        return word[:-1]
    if len(word) > 3 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "i"
    return word


def split_identifier(identifier: str) -> list[str]:
    """The words of one identifier, lowercased: `HTTPServer_parseCookie2` -> http, server, parse, cookie, 2."""
    out: list[str] = []
    for part in identifier.split("_"):
        if not part:
            continue
        if part.islower() or part.isupper() and len(part) > 1 and not any(c.isdigit() for c in part):
            out.append(part.lower())
        else:
            out.extend(m.group(0).lower() for m in _CAMEL.finditer(part))
    return out


def tokens(text: str, *, compounds: bool = True) -> list[str]:
    """Every word of a text, in order: identifiers split (snake_case, camelCase, dotted paths), lowercased,
    plurals folded, filler words and bare numbers dropped; with `compounds`, each identifier of several words
    also gives its words joined."""
    return list(chain.from_iterable(map(_word_tokens if compounds else _word_tokens_plain, _WORD.findall(text))))


@functools.lru_cache(maxsize=65536)
def _word_tokens(ident: str) -> tuple[str, ...]:
    if len(ident) > MAX_TOKEN:
        return ()
    words = split_identifier(ident)
    kept = [stem(w) for w in words if w not in STOPWORDS and not w.isdigit()]
    if len(words) > 1:
        joined = stem("".join(words))
        if joined not in STOPWORDS:
            kept.append(joined)
    return tuple(kept)


@functools.lru_cache(maxsize=65536)
def _word_tokens_plain(ident: str) -> tuple[str, ...]:
    if len(ident) > MAX_TOKEN:
        return ()
    return tuple(stem(w) for w in split_identifier(ident) if w not in STOPWORDS and not w.isdigit())


def path_tokens(path: str) -> list[str]:
    """The words of a repository path, without the extension: `src/werkzeug/http.py` -> src, werkzeug, http."""
    stem_path = path.removesuffix(".pyi") if path.endswith(".pyi") else path.removesuffix(".py")
    return tokens(stem_path.replace("/", " "), compounds=True)


def query_terms(text: str) -> list[str]:
    """A task text as distinct search terms, in first-seen order."""
    seen: dict[str, None] = {}
    for t in tokens(text):
        seen.setdefault(t, None)
    return list(seen)


# --- a Python source cut into per-definition documents -----------------------------------

@functools.cache
def _strings_lexer() -> re.Pattern[str]:
    """One pass over a file: comments, triple-quoted strings, other strings; the identifiers between them are
    _NAME's (compiled when first needed: a query never needs it). No groups: a match's kind is its first characters
    (a one-line string cannot start with three quotes), and groups made the scan twice as slow."""
    return re.compile(
        r"""\#[^\r\n]*"""
        r"""|\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''"""
        r"""|"(?:\\.|[^"\\\r\n])*"|'(?:\\.|[^'\\\r\n])*'"""
    )


#: An identifier outside comments and strings.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Lines longer than this are data (a minified bundle, an embedded table): skipped when tokenizing.
MAX_LINE = 2000


class Span(NamedTuple):
    """A definition's place in its file: 1-based lines, both ends inclusive."""

    qualname: str  # module-relative ("" for the module itself)
    line: int
    end_line: int


class Doc(NamedTuple):
    """The token text of one definition, by field (space-separated tokens)."""

    qualname: str
    line: int
    end_line: int
    name: str
    prose: str
    body: str


def _owner_of_lines(spans: Sequence[Span], n_lines: int) -> list[int]:
    """For each line (index 0 = line 1), the index of the innermost span holding it; -1 for module level."""
    owner = [-1] * (n_lines + 2)
    # Outer spans first, so inner ones overwrite them.
    for i in sorted(range(len(spans)), key=lambda i: (spans[i].line, -spans[i].end_line)):
        s = spans[i]
        lo, hi = max(1, s.line), min(n_lines, s.end_line)
        for ln in range(lo, hi + 1):
            owner[ln] = i
    return owner


def split_source(text: str, spans: Sequence[Span]) -> list[Doc]:
    """One document per definition plus one for the module (qualname ""), each holding only its own lines:
    a class's document leaves out its methods' lines, which are theirs."""
    lines = text.split("\n")
    n_lines = len(lines)
    run_starts, run_slots = _runs(lines, _owner_of_lines(spans, n_lines))
    prose: list[list[str]] = [[] for _ in range(len(spans) + 1)]  # last slot: the module
    body: list[list[str]] = [[] for _ in range(len(spans) + 1)]

    def names(start: int, end: int) -> None:
        """The identifiers of text[start:end] (no comment or string in it) to their runs' bodies: each run's in
        one findall and one extend, since identifiers are most of a file (a million on a 4,000-file repository)."""
        run = bisect.bisect_right(run_starts, start) - 1
        while start < end:
            stop = min(end, run_starts[run + 1]) if run + 1 < len(run_starts) else end
            slot = run_slots[run]
            if slot != _SKIPPED:
                body[slot].extend(chain.from_iterable(map(_word_tokens, _NAME.findall(text, start, stop))))
            start, run = stop, run + 1

    # The lexer's other alternatives start with `#` or a quote, which no identifier holds: finding them alone
    # leaves between them exactly the identifiers the whole lexer would find there.
    done = 0
    for m in _strings_lexer().finditer(text):
        start = m.start()
        if start > done:
            names(done, start)
        done = m.end()
        slot = run_slots[bisect.bisect_right(run_starts, start) - 1]
        if slot == _SKIPPED:
            continue
        value = m[0]
        if value[0] == "#":
            prose[slot].extend(tokens(value))
        elif value[:3] in ('"""', "'''"):
            prose[slot].extend(tokens(value[3:-3]))
        else:
            body[slot].extend(tokens(value[1:-1]))
    if done < len(text):
        names(done, len(text))
    docs = []
    for i, s in enumerate(spans):
        docs.append(Doc(s.qualname, s.line, s.end_line, " ".join(tokens(s.qualname)), " ".join(prose[i]), " ".join(body[i])))
    docs.append(Doc("", 1, max(1, n_lines), "", " ".join(prose[-1]), " ".join(body[-1])))
    return docs


#: The slot of a line longer than MAX_LINE: its matches are skipped.
_SKIPPED = -2


def _runs(lines: Sequence[str], owner: Sequence[int]) -> tuple[list[int], list[int]]:
    """The text cut into runs of lines of one slot: each run's start offset and its slot (`owner`'s span index,
    -1 for the module, _SKIPPED for a line longer than MAX_LINE)."""
    starts: list[int] = []
    slots: list[int] = []
    pos, last = 0, None
    for ln, line in enumerate(lines, 1):
        slot = _SKIPPED if len(line) > MAX_LINE else owner[ln]
        if slot != last:
            starts.append(pos)
            slots.append(slot)
            last = slot
        pos += len(line) + 1
    return starts, slots


def join(words: Iterable[str]) -> str:
    return " ".join(words)


# --- names a task writes as code ---------------------------------------------------------------

#: A file name with a source suffix (`main.py`, `src/cart.ts`).
_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:pyi?|[mc]?tsx?|[mc]?jsx?))(?![\w/])")
#: A backticked name, or a run of identifiers joined by dots.
_CODE = re.compile(r"`([A-Za-z_][\w.]*)`|(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")
#: camelCase or PascalCase of two words or more: a lower-case letter before a capital (`getUser`,
#: `DeviceSerializer`); an acronym alone (`REST`) or a capitalised word (`Device`) is prose.
_CAMEL_NAME = re.compile(r"[a-z0-9][A-Z]")
#: Words the task writes with a dot that are not code (`e.g.`, `i.e.`): every part must be this long.
_PART = 2


def written_files(text: str) -> list[str]:
    """The file names a task writes (`main.py`, `src/cart.ts`), in order, once each."""
    return list(dict.fromkeys(m.group(1) for m in _FILE.finditer(text)))


def written_names(text: str) -> list[str]:
    """The names a task writes as code, in order, once each: backticked (`` `warning` ``), dotted
    (`Display.warning`), snake_case (`lenient_issubclass`), or camelCase/PascalCase of two words or more
    (`DeviceSerializer`). A plain word, a capitalised one or an acronym is prose, and so is a name of dunders
    alone (`__init__`: every class has one). File names are `written_files`'."""
    files = set(written_files(text))
    out: dict[str, None] = {}
    for m in _CODE.finditer(text):
        quoted, name = m.group(1), m.group(2)
        if quoted:
            out.setdefault(quoted.strip("."), None)
            continue
        if name in files or any(f.endswith(name) or name in f for f in files):
            continue
        parts = name.split(".")
        if len(parts) > 1:
            if all(len(p) >= _PART for p in parts) and not name[-1:].isdigit():
                out.setdefault(name, None)
            continue
        core = name.strip("_")
        if core and ("_" in core or _CAMEL_NAME.search(core)) and not name.startswith("__"):
            out.setdefault(name, None)
    return list(out)


_ABOUT_TESTS = re.compile(r"\b(?:tests?|testing|tested|pytest|conftest|fixtures?|unittest|spec|specs)\b", re.IGNORECASE)


def about_tests(text: str) -> bool:
    """Whether a task is about tests (then tests rank as any file, and a test's definition can be the one named)."""
    return bool(_ABOUT_TESTS.search(text))
