"""TypeScript/JavaScript module resolution (issue 21) on real git repositories: tsconfig `paths`/`baseUrl`/`extends`/
`rootDirs`/`moduleSuffixes`, governance by the nearest including config and solution-style `references`,
workspaces (pnpm and npm), `exports`/`imports` with conditions, patterns and null targets, self-names,
extension substitution and index files, `dist/` outputs read as sources, and what stays unresolved (bundler
aliases, missing files, builtins, packages). Each answer is read from `graphguard imports --format json`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import GitRepo

Answer = tuple[str, str | None, str | None]  # (status, category, target)


def _imports(graphguard: Callable[..., Any], repo: GitRepo, *paths: str) -> dict[tuple[str, str], Answer]:
    result = graphguard(repo, "imports", *paths, "--format", "json")
    assert result.code == 0, result.err
    return {(i["path"], i["specifier"]): (i["kind"], i["category"], i["target"]) for i in result.json["imports"]}


ALIASES = {
    "tsconfig.base.json": """
        {
          // JSONC: comments and trailing commas, as tsc reads them
          "compilerOptions": {
            "baseUrl": ".", /* paths below are relative to it */
            "paths": {
              "@/*": ["src/*"],
              "@lib/*": ["missing/*", "lib/*"],
              "@app/config": ["src/config/index.ts"],
              "@app/*": ["src/app/*"],
              "react": ["./node_modules/@types/react"],
            },
          },
        }
    """,
    "tsconfig.json": '{"extends": "./tsconfig.base.json", "include": ["src", "lib", "utils"]}\n',
    "src/util/x.ts": "export const x = 1;\n",
    "src/config/index.ts": "export const config = {};\n",
    "src/app/config.ts": "export const appConfig = {};\n",
    "lib/y.ts": "export const y = 2;\n",
    "utils/z.ts": "export const z = 3;\n",
    "src/a.ts": """
        import { x } from "@/util/x";
        import { y } from "@lib/y";
        import { config } from "@app/config";
        import { z } from "utils/z";
        import { gone } from "@/nothing";
        import React from "react";
        export const all = [x, y, config, z, gone, React];
    """,
    "apps/web/tsconfig.json": """
        {"extends": ["../../tsconfig.base.json"],
         "compilerOptions": {"paths": {"#web/*": ["${configDir}/src/*"], "@/*": ["../../src/*"]}, "baseUrl": null}}
    """,
    "apps/web/src/button.tsx": "export const Button = () => null;\n",
    "apps/web/src/page.tsx": """
        import { Button } from "#web/button";
        import { x } from "@/util/x";
        export const Page = () => [Button, x];
    """,
}


def test_paths_longest_prefix_each_target_in_order_baseurl_and_extends(make_repo: Callable[..., GitRepo],
                                                                       graphguard: Callable[..., Any]) -> None:
    got = _imports(graphguard, make_repo(ALIASES), "src/a.ts", "apps/web/src/page.tsx")
    assert got[("src/a.ts", "@/util/x")] == ("internal", "paths", "src/util/x.ts")
    assert got[("src/a.ts", "@lib/y")] == ("internal", "paths", "lib/y.ts")  # the first target names no file
    assert got[("src/a.ts", "@app/config")] == ("internal", "paths", "src/config/index.ts")  # exact key over `@app/*`
    assert got[("src/a.ts", "utils/z")] == ("internal", "base-url", "utils/z.ts")
    assert got[("src/a.ts", "@/nothing")] == ("unresolved", "missing", None)
    assert got[("src/a.ts", "react")] == ("external", "package", None)  # an alias into node_modules
    # `${configDir}` is the extending config's folder; its own `paths` replace the base's, relative to itself
    assert got[("apps/web/src/page.tsx", "#web/button")] == ("internal", "paths", "apps/web/src/button.tsx")
    assert got[("apps/web/src/page.tsx", "@/util/x")] == ("internal", "paths", "src/util/x.ts")


PNPM = {
    "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n  - \"apps/*\"\n  - '!packages/ignored'\n",
    "tsconfig.json": '{"compilerOptions": {"module": "esnext", "moduleResolution": "bundler", "customConditions": ["source"]}}\n',
    "packages/money/package.json": """
        {"name": "@acme/money", "type": "module",
         "exports": {
           ".": {"types": "./dist/index.d.ts", "import": "./src/index.ts"},
           "./parse": "./src/parse.ts",
           "./internal/*": null,
           "./utils/*": "./src/utils/*.ts",
           "./styled": [{"source": "./src/styled.ts"}, "./dist/styled.js"],
           "./*": "./src/*.ts"
         }}
    """,
    "packages/money/src/index.ts": "export const money = 1;\n",
    "packages/money/src/parse.ts": 'export const parse = 1;\nimport { money } from "@acme/money";\n',
    "packages/money/src/utils/round.ts": "export const round = 1;\n",
    "packages/money/src/internal/secret.ts": "export const secret = 1;\n",
    "packages/money/src/styled.ts": "export const styled = 1;\n",
    "packages/money/src/extra.ts": "export const extra = 1;\n",
    "packages/ignored/package.json": '{"name": "ignored-pkg", "main": "index.ts"}\n',
    "packages/ignored/index.ts": "export const no = 1;\n",
    "apps/shop/package.json": '{"name": "shop"}\n',
    "apps/shop/main.ts": """
        import { money } from "@acme/money";
        import { parse } from "@acme/money/parse";
        import { round } from "@acme/money/utils/round";
        import { secret } from "@acme/money/internal/secret";
        import { styled } from "@acme/money/styled";
        import { extra } from "@acme/money/extra";
        import { no } from "ignored-pkg";
        export const all = [money, parse, round, secret, styled, extra, no];
    """,
}


def test_pnpm_workspace_exports_conditions_patterns_null_targets_arrays_and_self_name(make_repo: Callable[..., GitRepo],
                                                                                       graphguard: Callable[..., Any]) -> None:
    got = _imports(graphguard, make_repo(PNPM), "apps", "packages/money/src/parse.ts")
    main = "apps/shop/main.ts"
    # `types` names an unbuilt output: the next matching condition (`import`) is the source
    assert got[(main, "@acme/money")] == ("internal", "exports", "packages/money/src/index.ts")
    assert got[(main, "@acme/money/parse")] == ("internal", "exports", "packages/money/src/parse.ts")
    assert got[(main, "@acme/money/utils/round")] == ("internal", "exports", "packages/money/src/utils/round.ts")
    assert got[(main, "@acme/money/internal/secret")] == ("unresolved", "missing", None)  # a null target, not `./*`
    assert got[(main, "@acme/money/styled")] == ("internal", "exports", "packages/money/src/styled.ts")  # custom condition
    assert got[(main, "@acme/money/extra")] == ("internal", "exports", "packages/money/src/extra.ts")
    assert got[(main, "ignored-pkg")] == ("external", "package", None)  # excluded by `!packages/ignored`
    assert got[("packages/money/src/parse.ts", "@acme/money")] == ("internal", "self", "packages/money/src/index.ts")


NPM = {
    "package.json": '{"name": "root", "private": true, "workspaces": {"packages": ["libs/*"]}}\n',
    "libs/core/package.json": '{"name": "core-lib", "main": "./dist/index.js", "types": "./dist/index.d.ts"}\n',
    "libs/core/tsconfig.json": '{"compilerOptions": {"outDir": "dist", "rootDir": "src"}}\n',
    "libs/core/src/index.ts": "export const core = 1;\n",
    "libs/core/src/deep/thing.ts": "export const thing = 1;\n",
    "libs/typed/package.json": """
        {"name": "typed-lib", "main": "./index.js", "typesVersions": {">=4.0": {"*": ["./types/*"]}}}
    """,
    "libs/typed/types/feature.d.ts": "export declare const feature: number;\n",
    "libs/typed/index.js": "module.exports = {};\n",
    "app/main.ts": """
        import { core } from "core-lib";
        import { thing } from "core-lib/dist/deep/thing";
        import { feature } from "typed-lib/feature";
        import typed from "typed-lib";
        export const all = [core, thing, feature, typed];
    """,
}


def test_npm_workspaces_main_types_typesversions_and_dist_mapped_back_to_sources(make_repo: Callable[..., GitRepo],
                                                                                  graphguard: Callable[..., Any]) -> None:
    got = _imports(graphguard, make_repo(NPM), "app/main.ts")
    assert got[("app/main.ts", "core-lib")] == ("internal", "workspace", "libs/core/src/index.ts")  # outDir -> rootDir
    assert got[("app/main.ts", "core-lib/dist/deep/thing")] == ("internal", "workspace", "libs/core/src/deep/thing.ts")
    assert got[("app/main.ts", "typed-lib/feature")] == ("internal", "workspace", "libs/typed/types/feature.d.ts")
    assert got[("app/main.ts", "typed-lib")] == ("internal", "workspace", "libs/typed/index.js")


NODENEXT = {
    "package.json": """
        {"name": "svc", "type": "module",
         "imports": {"#db": {"node": "./src/db-node.ts", "default": "./src/db.ts"}, "#utils/*": "./src/utils/*.js",
                     "#dep": "dep-lib"}}
    """,
    "tsconfig.json": '{"compilerOptions": {"module": "nodenext", "rootDirs": ["src", "generated"]}}\n',
    "src/db-node.ts": "export const db = 1;\n",
    "src/db.ts": "export const db = 2;\n",
    "src/utils/fmt.ts": "export const fmt = 1;\n",
    "src/cart.ts": "export const cart = 1;\n",
    "src/view.tsx": "export const View = 1;\n",
    "src/esm.mts": "export const esm = 1;\n",
    "src/cjs.cts": "export const cjs = 1;\n",
    "src/types.d.ts": "export declare const typed: number;\n",
    "src/widgets/index.ts": "export const widget = 1;\n",
    "generated/template.ts": "export const template = 1;\n",
    "src/main.ts": """
        import { db } from "#db";
        import { fmt } from "#utils/fmt";
        import { cart } from "./cart.js";
        import { View } from "./view.jsx";
        import { esm } from "./esm.mjs";
        import { cjs } from "./cjs.cjs";
        import { typed } from "./types.js";
        import { widget } from "./widgets";
        import { template } from "./template.js";
        import { nope } from "./nope.js";
        import { dep } from "#dep";
        export const all = [db, fmt, cart, View, esm, cjs, typed, widget, template, nope, dep];
    """,
}


def test_nodenext_imports_conditions_extension_substitution_index_and_rootdirs(make_repo: Callable[..., GitRepo],
                                                                                graphguard: Callable[..., Any]) -> None:
    got = _imports(graphguard, make_repo(NODENEXT), "src/main.ts")
    m = "src/main.ts"
    assert got[(m, "#db")] == ("internal", "imports", "src/db-node.ts")  # `node` comes before `default`
    assert got[(m, "#utils/fmt")] == ("internal", "imports", "src/utils/fmt.ts")
    assert got[(m, "./cart.js")] == ("internal", "relative", "src/cart.ts")
    assert got[(m, "./view.jsx")] == ("internal", "relative", "src/view.tsx")
    assert got[(m, "./esm.mjs")] == ("internal", "relative", "src/esm.mts")
    assert got[(m, "./cjs.cjs")] == ("internal", "relative", "src/cjs.cts")
    assert got[(m, "./types.js")] == ("internal", "relative", "src/types.d.ts")
    assert got[(m, "./widgets")] == ("internal", "relative", "src/widgets/index.ts")  # lenient: ESM wants ./widgets/index.js
    assert got[(m, "./template.js")] == ("internal", "root-dirs", "generated/template.ts")
    assert got[(m, "./nope.js")] == ("unresolved", "missing", None)
    assert got[(m, "#dep")] == ("external", "package", None)  # `imports` maps it to a package of node_modules


GOVERNED = {
    "tsconfig.json": '{"files": [], "references": [{"path": "./tsconfig.app.json"}, {"path": "./tsconfig.node.json"}]}\n',
    "tsconfig.app.json": '{"include": ["src"], "compilerOptions": {"paths": {"@/*": ["./src/*"]}}}\n',
    "tsconfig.node.json": '{"include": ["vite.config.ts"], "compilerOptions": {"paths": {"@/*": ["./node-side/*"]}}}\n',
    "src/lib.ts": "export const lib = 1;\n",
    "src/main.ts": 'import { lib } from "@/lib";\nimport { Button } from "@components/Button";\nexport const m = [lib, Button];\n',
    "node-side/lib.ts": "export const nodeLib = 1;\n",
    "vite.config.ts": """
        import { defineConfig } from "vite";
        import { lib } from "@/lib";
        export default defineConfig({ resolve: { alias: { "@components": "/src/components", "~": "/src" } } });
    """,
    "packages/a/tsconfig.json": '{"include": ["src"], "compilerOptions": {"baseUrl": ".", "paths": {"@x": ["./a-x.ts"]}}}\n',
    "packages/a/a-x.ts": "export const ax = 1;\n",
    "packages/a/src/f.ts": 'import { ax } from "@x";\nexport const f = ax;\n',
    "packages/a/scripts/g.ts": 'import { ax } from "@x";\nexport const g = ax;\n',
}


def test_nearest_including_config_governs_solution_references_and_bundler_aliases(make_repo: Callable[..., GitRepo],
                                                                                   graphguard: Callable[..., Any]) -> None:
    got = _imports(graphguard, make_repo(GOVERNED), "src", "vite.config.ts", "packages")
    assert got[("src/main.ts", "@/lib")] == ("internal", "paths", "src/lib.ts")  # tsconfig.app.json, by reference
    assert got[("vite.config.ts", "@/lib")] == ("internal", "paths", "node-side/lib.ts")  # tsconfig.node.json
    assert got[("src/main.ts", "@components/Button")] == ("unresolved", "bundler-alias", None)
    assert got[("vite.config.ts", "vite")] == ("external", "package", None)
    assert got[("packages/a/src/f.ts", "@x")] == ("internal", "paths", "packages/a/a-x.ts")
    # scripts/ is not in packages/a's `include`: no config includes it, the nearest one still governs (lenient)
    assert got[("packages/a/scripts/g.ts", "@x")] == ("internal", "paths", "packages/a/a-x.ts")


def test_a_change_to_an_extended_config_re_resolves_its_importers(make_repo: Callable[..., GitRepo],
                                                                  graphguard: Callable[..., Any]) -> None:
    repo = make_repo(ALIASES)
    assert _imports(graphguard, repo, "src/a.ts")[("src/a.ts", "@/util/x")][2] == "src/util/x.ts"
    repo.commit("move the alias", {"tsconfig.base.json": '{"compilerOptions": {"paths": {"@/*": ["lib/*"]}}}\n',
                                   "lib/util/x.ts": "export const x = 9;\n"})
    assert _imports(graphguard, repo, "src/a.ts")[("src/a.ts", "@/util/x")] == ("internal", "paths", "lib/util/x.ts")


def test_builtins_packages_and_commonjs_requires(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "lib/express.js": "module.exports = function express() {};\n",
        "lib/router/index.js": "module.exports = {};\n",
        "index.js": 'import fs from "fs";\nimport path from "node:path";\nimport lodash from "lodash/fp";\n'
                    'import e from "./lib/express";\nimport r from "./lib/router";\nexport default [fs, path, lodash, e, r];\n',
    })
    got = _imports(graphguard, repo, "index.js")
    assert got[("index.js", "fs")] == ("external", "builtin", None)
    assert got[("index.js", "node:path")] == ("external", "builtin", None)
    assert got[("index.js", "lodash/fp")] == ("external", "package", None)
    assert got[("index.js", "./lib/express")] == ("internal", "relative", "lib/express.js")
    assert got[("index.js", "./lib/router")] == ("internal", "relative", "lib/router/index.js")


@pytest.mark.parametrize(("text", "value"), [
    (b'{"a": 1, // c\n "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
    (b'{"url": "http://x//y", /* "no": 1 */ "k": "a,}"}', {"url": "http://x//y", "k": "a,}"}),
    (b"\xef\xbb\xbf{}", {}),
    (b"{not json", None),
    (b"[1]", None),
])
def test_jsonc_reads_comments_and_trailing_commas(text: bytes, value: object) -> None:
    from graphguard.languages.typescript.jsonc import loads_object

    assert loads_object(text) == value


@pytest.mark.parametrize(("pattern", "path", "hit"), [
    ("src", "src/a/b.ts", True),
    ("src", "srcx/a.ts", False),
    ("src/**/*.ts", "src/a.ts", True),
    ("src/**/*.ts", "src/a/b/c.ts", True),
    ("src/*.ts", "src/a/b.ts", False),
    ("**/*", "a/b.tsx", True),
    ("src/?.ts", "src/a.ts", True),
    ("**/*", ".hidden/a.ts", False),
    ("**/*", "a/node_modules/b.ts", False),
    ("src/*", "src/.eslintrc.js", False),
])
def test_include_patterns(pattern: str, path: str, hit: bool) -> None:
    from graphguard.languages.typescript.patterns import matches

    assert matches(pattern, path) is hit


def test_pnpm_workspace_yaml_block_and_flow_lists() -> None:
    from graphguard.languages.typescript.packages import pnpm_packages

    assert pnpm_packages("packages:\n  - 'a/*'\n  - b # comment\nonlyBuilt: x\n") == ["a/*", "b"]
    assert pnpm_packages("packages: ['x/*', \"y\"]\n") == ["x/*", "y"]


def test_a_symlinked_file_resolves_to_its_target_as_tsc_reports_it(make_repo: Callable[..., GitRepo],
                                                                   graphguard: Callable[..., Any]) -> None:
    repo = make_repo({"shared/config.ts": "export const shared = 1;\n",
                      "pkg/main.ts": 'import { shared } from "./root.config";\nexport const m = shared;\n'})
    (repo.root / "pkg" / "root.config.ts").symlink_to("../shared/config.ts")
    repo.commit("link")
    got = _imports(graphguard, repo, "pkg/main.ts")
    assert got[("pkg/main.ts", "./root.config")] == ("internal", "relative", "shared/config.ts")


def test_a_nested_workspace_sees_its_own_packages_first(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "package.json": '{"workspaces": ["packages/*"]}\n',
        "packages/ui/package.json": '{"name": "@ws/ui", "main": "index.ts"}\n',
        "packages/ui/index.ts": "export const rootUi = 1;\n",
        "templates/t1/pnpm-workspace.yaml": "packages:\n  - packages/*\n",
        "templates/t1/packages/ui/package.json": '{"name": "@ws/ui", "main": "index.ts"}\n',
        "templates/t1/packages/ui/index.ts": "export const t1Ui = 1;\n",
        "templates/t1/app.ts": 'import { t1Ui } from "@ws/ui";\nexport const a = t1Ui;\n',
        "packages/app/package.json": '{"name": "app"}\n',
        "packages/app/app.ts": 'import { rootUi } from "@ws/ui";\nexport const a = rootUi;\n',
    })
    got = _imports(graphguard, repo, "templates/t1/app.ts", "packages/app/app.ts")
    assert got[("templates/t1/app.ts", "@ws/ui")] == ("internal", "workspace", "templates/t1/packages/ui/index.ts")
    assert got[("packages/app/app.ts", "@ws/ui")] == ("internal", "workspace", "packages/ui/index.ts")


SHARED_CONFIG = {
    "pnpm-workspace.yaml": "packages:\n  - packages/*\n  - apps/*\n",
    "packages/tsconfig/package.json": '{"name": "@acme/tsconfig"}\n',
    "packages/tsconfig/base.json": """
        {"compilerOptions": {"moduleResolution": "bundler", "module": "esnext", "moduleSuffixes": [".native", ""],
                             "paths": {"@/*": ["${configDir}/src/*"]}}}
    """,
    "apps/web/package.json": '{"name": "web"}\n',
    "apps/web/tsconfig.json": '{"extends": "@acme/tsconfig/base.json", "include": ["src"]}\n',
    "apps/web/src/money.ts": "export function parse(text: string, currency: string): number { return 0; }\n",
    "apps/web/src/button.native.tsx": "export const Button = () => null;\n",
    "apps/web/src/button.tsx": "export const Button = () => 1;\n",
    "apps/web/src/use.ts": """
        import { parse } from "@/money";
        import { Button } from "./button";
        export const widget = Button;
        export function run() { return parse("1", "EUR"); }
    """,
}


def test_extends_from_a_workspace_package_module_suffixes_and_a_staged_break_through_an_alias(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo(SHARED_CONFIG)
    got = _imports(graphguard, repo, "apps/web/src/use.ts")
    assert got[("apps/web/src/use.ts", "@/money")] == ("internal", "paths", "apps/web/src/money.ts")
    assert got[("apps/web/src/use.ts", "./button")] == ("internal", "relative", "apps/web/src/button.native.tsx")
    repo.write({"apps/web/src/money.ts": "export function parse(text: string, currency: string, rate: number): number { return 0; }\n"})
    repo.git("add", "-A")
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code == 1, result.out
    (change,) = [c for c in result.json["changes"] if c["symbol"] == "apps/web/src/money.ts#parse"]
    assert {(c["caller"], c["status"]) for c in change["callers"] if c["kind"] == "call"} == {("apps/web/src/use.ts#run", "broken")}


def test_files_of_one_folder_resolve_by_their_own_format_under_nodenext(make_repo: Callable[..., GitRepo],
                                                                        graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "package.json": '{"name": "svc", "workspaces": ["dual"]}\n',
        "tsconfig.json": '{"compilerOptions": {"module": "nodenext"}}\n',
        "dual/package.json": '{"name": "dual", "exports": {".": {"import": "./esm.ts", "require": "./cjs.ts"}}}\n',
        "dual/esm.ts": "export const esm = 1;\n",
        "dual/cjs.ts": "export const cjs = 1;\n",
        "src/a.mts": 'import { esm } from "dual";\nexport const a = esm;\n',
        "src/b.ts": 'import { cjs } from "dual";\nexport const b = cjs;\n',  # a CommonJS file: `import` compiles to require
    })
    got = _imports(graphguard, repo, "src")
    assert got[("src/a.mts", "dual")] == ("internal", "exports", "dual/esm.ts")
    assert got[("src/b.ts", "dual")] == ("internal", "exports", "dual/cjs.ts")


def test_a_source_condition_another_config_declares_serves_a_file_whose_config_does_not(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "pnpm-workspace.yaml": "packages:\n  - packages/*\n  - examples/*\n",
        "tsconfig.json": '{"compilerOptions": {"moduleResolution": "bundler", "module": "esnext", "customConditions": ["@acme/source"]}}\n',
        "packages/core/package.json": """
            {"name": "@acme/core", "exports": {".": {"@acme/source": "./src/index.ts", "types": "./dist/index.d.ts",
                                                     "default": "./dist/index.mjs"}}}
        """,
        "packages/core/src/index.ts": "export const core = 1;\n",
        "packages/core/src/use.ts": 'import { core } from "@acme/core";\nexport const u = core;\n',
        "examples/app/package.json": '{"name": "example-app"}\n',
        "examples/app/tsconfig.json": '{"compilerOptions": {"moduleResolution": "bundler", "module": "esnext"}}\n',
        "examples/app/main.ts": 'import { core } from "@acme/core";\nexport const m = core;\n',
    })
    got = _imports(graphguard, repo, "examples/app/main.ts", "packages/core/src/use.ts")
    assert got[("packages/core/src/use.ts", "@acme/core")] == ("internal", "self", "packages/core/src/index.ts")
    assert got[("examples/app/main.ts", "@acme/core")] == ("internal", "exports", "packages/core/src/index.ts")


def _resolver(files: dict[str, str]) -> Any:
    from graphguard.languages.typescript.resolution import ModuleResolver
    from graphguard.languages.typescript.tree import MANIFEST, PNPM_WORKSPACE

    def is_config(p: str) -> bool:
        name = p.rpartition("/")[2]
        return name.endswith(".json") and (name.startswith(("tsconfig", "jsconfig")) or name == MANIFEST) or name == PNPM_WORKSPACE

    sources = [p for p in files if not is_config(p)]
    return ModuleResolver(sources, lambda p: files[p].encode() if p in files else None, [p for p in files if is_config(p)])


def test_config_cycles_and_broken_configs_resolve_without_them() -> None:
    r = _resolver({
        "tsconfig.json": '{"extends": "./tsconfig.b.json", "compilerOptions": {"paths": {"@/*": ["./src/*"]}}, "references": [{"path": "."}]}',
        "tsconfig.b.json": '{"extends": "./tsconfig.json"}',
        "broken/tsconfig.json": '{"compilerOptions": {',
        "broken/a.ts": "",
        "src/x.ts": "",
        "main.ts": "",
    })
    assert r.resolve("main.ts", "@/x").target == "src/x.ts"
    assert r.resolve("broken/a.ts", "@/x").target == "src/x.ts"  # the broken config is no config: the root's governs
    assert r.resolve("main.ts", "./src/x.js").target == "src/x.ts"


def test_an_exports_pattern_with_a_trailer_and_the_longest_prefix_first() -> None:
    r = _resolver({
        "package.json": '{"workspaces": ["p"]}',
        "tsconfig.json": '{"compilerOptions": {"moduleResolution": "bundler", "module": "esnext"}}',
        "p/package.json": '{"name": "p", "exports": {"./*.js": "./src/*.ts", "./features/*": "./src/features/*/index.ts", "./*": null}}',
        "p/src/a.ts": "",
        "p/src/features/b/index.ts": "",
        "main.ts": "",
    })
    assert r.resolve("main.ts", "p/a.js").target == "p/src/a.ts"
    assert r.resolve("main.ts", "p/features/b").target == "p/src/features/b/index.ts"
    assert r.resolve("main.ts", "p/other").target is None


def test_an_import_of_a_file_no_language_reads_is_internal_and_a_missing_one_missing(make_repo: Callable[..., GitRepo],
                                                                                     graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "tsconfig.json": '{"compilerOptions": {"resolveJsonModule": true, "paths": {"@/*": ["./src/*"]}}}\n',
        "src/App.vue": "<template></template>\n",
        "src/data.json": "{}\n",
        "src/logo.png": b"\x89PNG",
        "src/main.ts": 'import App from "./App.vue";\nimport data from "./data.json";\nimport logo from "@/logo.png";\n'
                       'import gone from "./Gone.vue";\nexport const all = [App, data, logo, gone];\n',
    })
    got = _imports(graphguard, repo, "src/main.ts")
    # the graph holds the files it indexes: these are the repository's, with no file row to name
    assert got[("src/main.ts", "./App.vue")] == ("internal", "relative", None)
    assert got[("src/main.ts", "./data.json")] == ("internal", "relative", None)
    assert got[("src/main.ts", "@/logo.png")] == ("internal", "paths", None)
    assert got[("src/main.ts", "./Gone.vue")] == ("unresolved", "missing", None)
    resolver = _resolver({"src/main.ts": "", "tsconfig.json": "{}"})
    resolver.files.assets = frozenset({"src/App.vue"})
    assert resolver.resolve("src/main.ts", "./App.vue").target == "src/App.vue"
