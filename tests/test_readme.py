"""README.md is the user's door: short, its commands real, its links whole; what it leaves out is one link away."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

from graphguard.main import _parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))


def _commands() -> dict[str, argparse.ArgumentParser]:
    top = _parser()
    return dict(next(a for a in top._actions if isinstance(a, argparse._SubParsersAction)).choices)


def _sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


def _ci_test_command() -> str:
    """The line .ci/run runs as the README's test command: the one after its "verbatim" comment."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return lines[lines.index("# The README's test command, verbatim:") + 1]


def test_the_readme_opens_with_the_main_job_then_the_tests_that_ci_runs() -> None:
    setup, tests = (block.strip() for block in _sh_blocks(README)[:2])
    assert README.index(setup) < README.index("## ")  # both before the first section
    assert setup.startswith("python3 -m venv .venv && ") and re.search(r"\bgraphguard check\b", setup)
    assert "\n" not in setup and "\n" not in tests  # one line each, to paste as it is
    assert tests == _ci_test_command()


def test_the_readme_stays_short() -> None:
    assert README.count("\n") <= 300


#: The commands hooks run, not people: --help hides them.
INTERNAL = ("hook-impl", "agent-hook")


def test_the_command_table_lists_every_command() -> None:
    rows = [line for line in README.splitlines() if line.startswith("| `graphguard ")]
    missing = [name for name in _commands() if name not in INTERNAL and not any(r.startswith(f"| `graphguard {name}") for r in rows)]
    assert not missing
    # internal, but named: a user meets them in the hook scripts and the editor's settings
    assert "`graphguard hook-impl`" in README and "`graphguard agent-hook`" in README


def test_the_commands_said_to_take_no_format_are_those_without_it() -> None:
    claim = re.search(r"all but ((?:`[a-z-]+`(?:, | and )?)+) take\s+`--format", README)
    assert claim, "the README no longer says which commands take --format"
    said = set(re.findall(r"`([a-z-]+)`", claim.group(1)))
    without = {name for name, p in _commands().items() if name not in INTERNAL and "--format" not in p._option_string_actions}
    assert said == without


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_relative_link_and_anchor_resolves() -> None:
    broken = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (doc.parent / path).resolve() if path else doc
            if not linked.is_file():
                broken.append(f"{doc.name}: {target}")
            elif anchor and anchor not in {_slug(h) for h in re.findall(r"^#+ (.*)$", linked.read_text(encoding="utf-8"), re.MULTILINE)}:
                broken.append(f"{doc.name}: {target} (no such heading)")
    assert not broken


def test_every_doc_is_linked_from_the_readme() -> None:
    unlinked = [doc.name for doc in DOCS[1:] if f"](docs/{doc.name})" not in README]
    assert not unlinked


def test_install_lines_pin_a_commit_or_a_tag_that_exists() -> None:
    """A `@v0.2.0` that the repository never tagged would fail the user's first pip install."""
    tags = set(subprocess.run(["git", "-C", str(ROOT), "tag"], capture_output=True, text=True, check=True).stdout.split())
    placeholders = {"<commit sha>", "${{ env.GRAPHGUARD_REV }}", "$GRAPHGUARD_REV"}
    wrong, seen = [], 0
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        refs = re.findall(r"git\+<URL of your graphguard clone>@([^\"']+)[\"']", text)
        refs += [r.strip() for r in re.findall(r"^\s*rev: ([^#\n]+)", text, re.MULTILINE)]
        wrong += [f"{doc.name}: {ref}" for ref in refs if ref not in placeholders | tags]
        seen += len(refs)
    assert seen >= 6  # README and docs/ci.md: pip in each CI snippet, the clone, pre-commit's rev
    assert not wrong
