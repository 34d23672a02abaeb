"""The graph refresh a post-* hook hands to a detached process, and the commands that wait for it.

A checkout can change thousands of files: refreshing the graph inside post-checkout held
`git checkout` for a minute with no output. So the hook only launches a refresher and
returns; the next command that needs the graph waits for it, or finishes the work itself
when no refresher is alive. Three files in `<git-dir>/graphguard/`:

- `refresh.lock`: an advisory lock (flock) held by the one live refresher for its whole
  life. It is the only proof that a refresher is alive: the kernel drops it with the
  process (kill -9, a crash, a reboot), so nothing a dead refresher leaves can block.
  The launcher takes it before it starts the refresher, which inherits it: there is no
  moment after the hook returned when a refresher is starting but not yet visible.
- `refresh.json`: who started the refresher and when, for the waiting message. Read only
  while the lock is held, and never trusted beyond that message.
- `refresh.log`: the refresher's output (stdout and stderr), kept under LOG_LIMIT bytes.

A command waits only while the refresher makes progress: its log, its state, the store's
databases and their -wal, the workers' scratch files or its (and its workers') CPU time move.
Past STALL_LIMIT without any of that (kill -STOP, a wait that never ends) it names the process
and does the work itself, under the write lock as every update is, so a stopped refresher
that goes on later finds the graph current; when the stuck one holds the write lock, the
command says so at once instead of waiting for it.

A hook that finds a refresher already running leaves: HEAD itself is the request, and the
refresher looks at HEAD again after every update and once more after letting go of the
lock (commands/refresh.serve), so a checkout that lands while it is busy is not lost.

    state     the three files: the lock (is a refresher alive), refresh.json (who started it, when)
    launcher  the hook's side (the mode, the detached launch) and the refresher's (adopting the lock)
    waiting   the commands' side: the wait while the refresher makes progress, and the stall limit
"""
