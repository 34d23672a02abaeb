"""The markdown tables of bench/ts_oracle.py, from its per-repository results (pure: results -> str)."""

from __future__ import annotations

from typing import Any


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def render(results: list[dict[str, Any]], compilers: list[Any], sha: str, load: str) -> str:
    lines = [f"On graphguard at {sha}; compilers: {', '.join(f'{c.name} {c.version}' for c in compilers)}; {load} "
             "(at the end of the run).", ""]
    lines += ["| repo | commit | covers | files | configs | workspace links | files governed by a config | config errors |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results:
        errors = "; ".join(e.replace(f"/tmp/ts-oracle/repos/{r['repo']}/", "") for e in r["config_errors"][:2]) or "-"
        lines.append(f"| {r['repo']} | {r['head']} | {r['covers']} | {r['files']} | {r['configs']} | "
                     f"{r['workspace_links']} | {r['governed']} | {errors} |")
    lines += ["", "### Imports (target: same file >= 99.5%, other file 0, false internal 0)", "",
              "| repo | tsc resolves to a repo file | graphguard same file | share | graphguard other file | "
              "graphguard external/unresolved | not in graphguard's imports | graphguard internal where tsc is not | time |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        i = r.get("imports")
        if i:
            lines.append(f"| {r['repo']} | {i['tsc_internal']} | {i['same']} | {pct(i['share'])} | {i['other_file']} | "
                         f"{i['missed']} | {i['not_seen']} | {i['false_internal']} of {i['tsc_not_internal']} | {r['imports_s']:.0f} s |")
    for r in results:
        i = r.get("imports")
        if i and i["examples"]:
            lines += ["", f"{r['repo']}: graphguard's kind/category where it missed: "
                      + (", ".join(f"{k} {v}" for k, v in i["missed_by"].items()) or "-")]
            for outcome, examples in i["examples"].items():
                lines += [f"- {outcome}: " + "; ".join(f"`{e}`" for e in examples[:3])]
    lines += ["", "tsgo against tsc 5 on the same (file, specifier) pairs (tsgo's --traceResolution, --listFilesOnly):", "",
              "| repo | pairs both resolved | same target | different | only in tsc 5's answers | examples | time |",
              "|---|---|---|---|---|---|---|"]
    for r in results:
        g = r.get("tsgo_imports")
        if g:
            lines.append(f"| {r['repo']} | {g['compared']} | {g['same']} | {g['differ']} | {g['tsc5_only']} | "
                         + ("; ".join(f"`{e}`" for e in g["examples"][:2]) or "-") + f" | {r['tsgo_s']:.0f} s |")
    lines += ["", "### Breaks (targets: recall >= 0.97, precision >= 0.98, controls blocked 0; JS recall >= 0.9)", "",
              "| repo | mutations | TS sites tsc | found | recall | graphguard TS sites | confirmed | precision | "
              "JS sites tsc (checkJs) | found | recall | graphguard JS sites | confirmed | graphguard sites in files no tsconfig checks (TS, JS) | "
              "graphguard exact sites tsc's resolution does not reach (TS, JS) | "
              "unknown callers | controls blocked | check p50 | time |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        b = r.get("breaks")
        if b:
            t, j = b["ts"], b["js"]
            lines.append(f"| {r['repo']} | {b['mutations']} | {t['tsc_sites']} | {t['found']} | {ratio(t['recall'])} | "
                         f"{t['gg_sites']} | {t['confirmed']} | {ratio(t['precision'])} | {j['tsc_sites']} | {j['found']} | "
                         f"{ratio(j['recall'])} | {j['gg_sites']} | {j['confirmed']} | {t['outside']}, {j['outside']} | "
                         f"{t.get('unreached', '-')}, {j.get('unreached', '-')} | {b['unknown']} | "
                         f"{b['controls_blocked']} of {b['controls']} | {b['check_p50_s']:.2f} s | {r['breaks_s']:.0f} s |")
    seeded = [r for r in results if r.get("js_seeds")]
    if seeded:
        lines += ["", "Seeded JavaScript callers of the TypeScript mutations (one per function or constructor mutated; tsc with "
                  "checkJs as the oracle, where plain tsc is silent; target recall >= 0.9):", "",
                  "| repo | seeds | of them controls | tsc sites (checkJs) | found | recall | graphguard broken | confirmed | precision | "
                  "missed | time |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in seeded:
            s = r["js_seeds"]
            lines.append(f"| {r['repo']} | {s['seeds']} | {s['controls']} | {s['tsc_sites']} | {s['found']} | {ratio(s['recall'])} | "
                         f"{s['gg_sites']} | {s['confirmed']} | {ratio(s['precision'])} | {'; '.join(s['missed']) or '-'} | "
                         f"{s['seconds']:.0f} s |")
    for r in results:
        if r.get("breaks_rows"):
            lines += ["", f"{r['repo']}, per mutation:", "",
                      "| kind | target | file | tsc sites | found | graphguard broken | confirmed | unknown | verdict |",
                      "|---|---|---|---|---|---|---|---|---|", *r["breaks_rows"]]
    names = [c.name for c in compilers]
    lines += ["", "### Speed (medians, wall with CPU seconds; targets: check < incremental tsc, <= 0.1x whole tsc, "
              "cold index <= 3x tree-sitter, no-op <= 100 ms)", "",
              "| repo | change | project | check --staged | " + " | ".join(f"incremental {n}" for n in names) + " | "
              + " | ".join(f"whole {n} (exit)" for n in names) + " | cold index | tree-sitter parse | no-op check | no-op index | time |",
              "|---|---|---|---|" + "---|" * (2 * len(names)) + "---|---|---|---|---|"]
    for r in results:
        s = r.get("speed")
        if s:
            lines.append(f"| {r['repo']} | {s['change']} `{s['file']}` | `{s['project']}` | {s['check']} | "
                         + " | ".join(s[f"inc-{n}"] for n in names) + " | "
                         + " | ".join(f"{s[f'whole-{n}']} ({s[f'whole-{n}-exit']})" for n in names)
                         + f" | {s['cold-index']} | {s['tree-sitter']} | {s['noop-check']} | {s['noop-index']} | {r['speed_s']:.0f} s |")
    return "\n".join(lines) + "\n"
