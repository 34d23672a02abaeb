"""Format versions: bump one and what was stored under the old one is rebuilt."""

#: The shape of FileFacts (and what the parser extracts; 5: declared encodings, depth bounds, exact comment blanking;
#: 6: where bindings start and end, the arms of compound statements, `global` names, syntax errors confirmed by
#: Python's parser, signatures end at the colon; 7: `super(Named, self)` keeps Named; 8: names NFKC-normalised as Python's
#: parser does; 9: `self.x = a.b` keeps the chain it is set to; 10: a name used as a type (an annotation, isinstance, cast) is an annotation
#: reference; 11: exports, of TypeScript/JavaScript files; 12: TypeScript/JavaScript's own facts (interfaces, types, enums,
#: namespaces, variables, JSX uses, import forms, export kinds, the regions that did not parse); 13: the methods TS
#: interfaces and type literals declare, `member`; 14: a TS callee on a call's result keeps its chain, `a.b().c`, and a
#: type alias of one named type has it as its base, and an unannotated function what its last `return` gives):
#: cached facts of another version are re-parsed.
FACTS_VERSION = 14
#: The graph database's tables and what resolution stores in them (7: too-deep and too-long resolutions, indexed by name;
#: 8: one-of resolutions, a row per target a name can hold at a call; 9: `self`/`cls` in a class nested in a function
#: or method is that class, not the outer one; 10: imports' form and category, TypeScript/JavaScript files; 11: a TS call
#: on an imported variable typed by its declaration; 12: TS calls on a call's result typed by its return annotation,
#: members found on a class's bases, an ES module's undeclared exports no longer importable by name).
SCHEMA_VERSION = 12
#: The blob cache's table (2: facts as bytes with a checksum).
BLOB_VERSION = 2
