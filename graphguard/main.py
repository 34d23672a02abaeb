"""Command line: parse arguments, dispatch to one command function, map errors to exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphguard import __version__, output

if TYPE_CHECKING:
    import argparse
    import sqlite3

# argparse, sqlite3 and the error handler (traceback) are imported in main, after the agent hook's fast path:
# the hook runs before every file write an agent makes, and needs none of them.


def _parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog="graphguard", description="A code graph that blocks commits leaving a caller broken.")
    parser.add_argument("--version", action="version", version=f"graphguard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str, formats: Sequence[str] = ("text", "json")) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        # default None: an explicit --repo outranks GIT_DIR / GIT_WORK_TREE (see _follow_repo); "." is put in after parsing
        p.add_argument("--repo", default=None, help="the repository (default: the one holding the current directory)")
        p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
        if formats:
            p.add_argument("--format", choices=formats, default="text")
        if "json" in formats:
            p.add_argument("--compact", action="store_true",
                           help="the JSON answer with short keys and without empty fields (implies --format json)")
        return p

    command("index", "build or bring up to date the graph of the repository at HEAD")
    command("refresh", "bring the graph up to date after git moved HEAD (for post-* hooks)", formats=())
    p = command("install", "write native git hooks (pre-commit, post-commit, post-checkout, post-merge, post-rewrite)", formats=())
    p.add_argument("--uninstall", action="store_true", help="remove graphguard's hooks and restore what was there")
    p.add_argument("--pre-push", action="store_true", help="also a pre-push hook: refuse to push a head that leaves a caller broken")
    from graphguard.agents import Editor

    p.add_argument("--agent", choices=[e.value for e in Editor], metavar="EDITOR",
                   help="instead of git hooks, the agent editor's project hooks: a file write that leaves a caller broken"
                        " is denied, and the agent is held before it finishes while one is ("
                        + ", ".join(e.value for e in Editor) + ")")
    command("clean", "remove the graph's store (<git-dir>/graphguard: graph, snapshots, caches, logs)", formats=())
    # Internal (the native hook shim's entry point): without help= argparse lists no line for it, whereas
    # help=SUPPRESS would print "hook-impl ==SUPPRESS==" in --help.
    p = sub.add_parser("hook-impl")
    p.add_argument("--repo", default=None)
    p.add_argument("--debug", action="store_true")
    p.add_argument("--hook-type", required=True)
    p.add_argument("hook_args", nargs="*")
    # Internal too (what `install --agent` writes into the editor's settings): free words, so that argparse's
    # exit 2, which an editor reads as "block the tool", never answers for the hook (commands/agent_hook.py).
    # (main reads its words itself, before this parser is built: it is here for --help's sake and the docs' tests.)
    p = sub.add_parser("agent-hook")
    p.add_argument("--repo", default=None)
    p.add_argument("--debug", action="store_true")
    p.add_argument("--serve", action="store_true")  # the work tree's agent server (commands/agent_server.py)
    p.add_argument("editor", nargs="?")
    p.add_argument("event", nargs="?")
    command("stats", "what the graph holds and how much of it resolved")
    p = command("check", "block a change that leaves a caller broken; report interface changes",
                formats=("text", "json", "markdown", "sarif", "github", "codequality"))
    what = p.add_mutually_exclusive_group()
    what.add_argument("--staged", action="store_true", help="check the staged changes (the index) against HEAD")
    what.add_argument("--worktree", action="store_true", help="check the working tree against HEAD")
    what.add_argument("--base", metavar="REF", help="check the commits since the merge base with REF (CI on a pull request)")
    p.add_argument("--head", metavar="REF", help="with --base: the commit to check (default HEAD)")
    p.add_argument("--proposed", action="append", default=[], metavar="PATH[=FILE]",
                   help="check the working tree as it would be with PATH holding FILE's bytes (PATH alone:"
                        " standard input, once); nothing is written (repeatable)")
    p.add_argument("--deleted", action="append", default=[], metavar="PATH",
                   help="with or without --proposed: check the working tree as it would be without PATH (repeatable)")
    p.add_argument("--verbose", action="store_true",
                   help="text and markdown: list the callers that still bind too (by default they are counted)")
    p.add_argument("--explain", metavar="CODE", help="what a change or signature code means, when it blocks, how to silence it")
    p = command("conflicts", "the breaks that merging each other branch with HEAD would have and neither side has alone",
                formats=("text", "json", "markdown", "sarif", "github", "codequality"))
    p.add_argument("--against", action="append", default=[], metavar="REF",
                   help="a branch (or any commit) to merge with HEAD (repeatable; default: the local and remote-tracking"
                        " branches sharing history with HEAD that moved in the last 30 days)")
    command("mcp", "serve the graph to coding agents over the Model Context Protocol (stdio)", formats=())
    p = command("callers", "every call site and reference of a symbol")
    p.add_argument("symbol", help="dotted name: pkg.mod.func or pkg.mod.Class.method")
    p = command("impact", "the callers of a symbol, their callers to some depth, and the tests that reach it")
    p.add_argument("symbol", help="dotted name: pkg.mod.func or pkg.mod.Class.method")
    p.add_argument("--depth", type=int, default=2, metavar="N", help="caller hops to follow (1 to 5, default 2)")
    p = command("imports", "per import statement: its specifier, kind (internal, external, unresolved), category and target file")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (relative to the repository, or to the current"
                                                             " directory; default: every file)")
    p = command("outline", "the definitions of files or package folders: signatures and docstrings, no bodies")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (relative to the repository, or to the current directory)")
    from graphguard.retrieval.kinds import AUTO, CHOICES

    for name, about, arg in (("context", "retrieval for an agent: ranked files and symbols for a task text", "task"),
                             ("related", "retrieval seeded with files or symbols instead of text", "seeds")):
        p = command(name, about)
        if arg == "task":
            p.add_argument("task", help="the task, in words (an issue, a commit message)")
        else:
            p.add_argument("seeds", nargs="+", metavar="PATH|SYMBOL", help="files (relative to the repository) or dotted symbols")
        p.add_argument("--limit", type=int, metavar="N",
                       help="at most N files, each with its best symbols (default 20; with --budget alone, as many as it holds)")
        p.add_argument("--budget", type=int, metavar="TOKENS",
                       help="at most this many tokens of source, 4 characters each, filled in rank order (default 8000)")
        p.add_argument("--depth", type=int, default=1, choices=(0, 1, 2), help="graph hops from the seeds (default 1)")
        p.add_argument("--profile", default=AUTO, choices=CHOICES,
                       help="ranking weights for the kind of task (default auto: the weights fitted to this repository's"
                            " history when they beat the shipped default on its later commits, else default)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    output.escape_what_cannot_be_encoded()
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["agent-hook"]:
        # An editor's hook, run before every file write: no parser to build (its imports are the hook's time),
        # and no argparse exit 2, which the editor would read as "block the tool" (commands/agent_hook.py).
        from graphguard.commands.agent_hook import from_words

        return from_words(words[1:])
    import sqlite3

    from graphguard.error_handler import Exit, error_handler

    parser = _parser()
    args = parser.parse_args(argv)
    explicit, args.repo = args.repo is not None, args.repo or "."
    try:
        with error_handler(getattr(args, "debug", False), repo=args.repo):
            if explicit:
                _follow_repo(args.repo)
            try:
                return _dispatch(args, parser)
            except sqlite3.DatabaseError as e:
                if isinstance(e, sqlite3.ProgrammingError):
                    raise  # a bug, not the disk
                return _storage_failure(args, parser, e)
    except Exit as e:
        return e.code


def _follow_repo(repo: str) -> None:
    """`--repo X` answers about X even where GIT_DIR or GIT_WORK_TREE name another repository (said on stderr)."""
    from graphguard import git

    moved = git.follow_path(os.path.abspath(repo))
    if moved:
        output.warn(moved)


def _storage_failure(args: argparse.Namespace, parser: argparse.ArgumentParser, e: sqlite3.Error) -> int:
    """SQLite failed under a command: damage is rebuilt once (the graph is a cache of what git has);
    anything else (read-only, full, busy) is one line that names the cause."""
    import sqlite3

    from graphguard.repo import open_repo
    from graphguard.store.db import is_damage, storage_error

    store = open_repo(os.path.abspath(args.repo)).store
    if not is_damage(e):
        raise storage_error(e, "the graph", store.graph_path) from None
    print(f"graphguard: warning: the graph database is damaged ({e}); rebuilding it", file=sys.stderr)
    try:
        store.discard()
    except OSError as cannot:
        raise storage_error(cannot, "the graph", store.graph_path) from None
    try:
        return _dispatch(args, parser)
    except sqlite3.Error as again:
        raise storage_error(again, "the graph", store.graph_path) from None


def _dispatch(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    repo = os.path.abspath(args.repo)
    if args.command == "index":
        from graphguard.commands.index import index

        return index(repo, fmt=args.format, compact=args.compact)
    if args.command == "refresh":
        from graphguard.commands.refresh import refresh

        return refresh(repo)
    if args.command == "install":
        if args.agent:
            if args.pre_push:
                parser.error("--pre-push is a git hook: not with --agent")
            from graphguard.commands.install_agent import install_agent

            return install_agent(repo, args.agent, uninstall=args.uninstall)
        from graphguard.commands.install import install

        return install(repo, uninstall=args.uninstall, pre_push=args.pre_push)
    if args.command == "clean":
        from graphguard.commands.clean import clean

        return clean(repo)
    if args.command == "hook-impl":
        from graphguard.commands.hook_impl import hook_impl

        return hook_impl(repo, args.hook_type, args.hook_args)
    if args.command == "agent-hook":
        from graphguard.commands.agent_hook import agent_hook

        return agent_hook(repo, args.editor, args.event)
    if args.command == "stats":
        from graphguard.commands.stats import stats

        return stats(repo, fmt=args.format, compact=args.compact)
    if args.command == "check":
        from graphguard.commands.check import check, explain

        if args.explain:
            return explain(args.explain)

        if args.head and not args.base:
            parser.error("--head needs --base")
        if (args.proposed or args.deleted) and (args.staged or args.worktree or args.base):
            parser.error("--proposed and --deleted compare with the working tree: not with --staged, --worktree or --base")
        return check(repo, staged=args.staged, worktree=args.worktree, base=args.base, head=args.head,
                     fmt="compact" if args.compact else args.format, verbose=args.verbose, proposed=args.proposed,
                     deleted=args.deleted)
    if args.command == "conflicts":
        from graphguard.commands.conflicts import conflicts

        return conflicts(repo, args.against, fmt="compact" if args.compact else args.format)
    if args.command == "mcp":
        from graphguard.commands.mcp import mcp

        return mcp(repo)
    if args.command == "callers":
        from graphguard.commands.callers import callers

        return callers(repo, args.symbol, fmt=args.format, compact=args.compact)
    if args.command == "impact":
        from graphguard.commands.impact import impact

        return impact(repo, args.symbol, depth=args.depth, fmt=args.format, compact=args.compact)
    if args.command == "imports":
        from graphguard.commands.context import seeds_from_cwd
        from graphguard.commands.imports import imports

        return imports(repo, seeds_from_cwd(repo, args.paths, folders=True) if args.paths else [], fmt=args.format,
                       compact=args.compact)
    if args.command == "outline":
        from graphguard.commands.context import seeds_from_cwd
        from graphguard.commands.outline import outline

        return outline(repo, seeds_from_cwd(repo, args.paths, folders=True), fmt=args.format, compact=args.compact)
    if args.command in ("context", "related"):
        from graphguard.commands import context as ctx

        opts = {"limit": args.limit, "budget": args.budget, "depth": args.depth, "profile": args.profile, "fmt": args.format,
                "compact": args.compact}
        if args.command == "context":
            return ctx.context(repo, args.task, **opts)
        return ctx.related(repo, ctx.seeds_from_cwd(repo, args.seeds), **opts)
    raise NotImplementedError(args.command)
