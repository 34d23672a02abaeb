"""TypeScript and JavaScript (issue 21): `.ts .tsx .mts .cts .js .jsx .mjs .cjs`, `.d.ts` as declarations.

Like `languages/python/`, this file holds only a docstring: importing one module loads only what it needs,
and only `grammar` imports tree_sitter (a hook that sees no TypeScript file never loads a grammar).
"""
