#!/usr/bin/env python3
"""Check docs/architecture.md against the code, so that it cannot drift.

Three checks, python3 standard library only:

1. The crate graph. The doc's dependency diagram is a fenced ```mermaid block that
   follows the marker line `<!-- check_architecture: crate graph -->`. Its nodes are
   `id["package-name"]`, its edges `a --> b` (a normal dependency) and `a -.-> b` (an
   optional one, behind a feature); `a --> b & c` draws several. It must name every
   package of the workspace and draw exactly the dependencies between workspace
   packages that `cargo metadata --format-version 1 --no-deps` reports: normal
   dependencies only (build and dev-dependencies are ignored: tests, benches and
   examples may use any crate), an optional dependency drawn dotted, a required one
   solid. A dependency that is optional on one target and required on another, or
   declared twice, counts as required.

2. The names. Every name in backticks written as a path, `ndd_x::Item`,
   `near_dup::x::Item`, `module::Item` or `Type::item`, must exist in the sources
   (the `src/` folders of the workspace packages): for `ndd_x::...::Item`, a public
   item or a `pub use` re-export named `Item` in that crate; for `Type::item`, a type
   `Type` whose definition or `impl` blocks hold `item` (a method, constant, associated
   type, field or variant). Every bare CamelCase name in backticks (`Dedup`,
   `MinHasher<E>`) must be defined somewhere in those sources. Paths into crates outside
   the workspace (`std::`, `serde::`) are not checked; a backtick span that is no Rust
   path (`--verify align`, `1 − h/64`) is skipped.

3. The files of each crate import one way. In every library and binary of the
   workspace (modules followed from its root by `mod` declarations; `#[cfg(test)]`
   modules left out; a `mod name;` whose file is neither `name.rs` nor `name/mod.rs`
   is reported, with the paths tried), a path from `crate::`, `super::` or `self::`,
   in a `use` or in code, is an edge from its file to the file of the deepest module it names
   (re-exports are not followed: `crate::Error` names the crate root). A file's paths
   into its own submodules are not edges: `lib.rs` and `mod.rs` hand their children's
   names on. Each module folder is checked as `farm-studio look FOLDER` draws it, its
   own file and each child (a subfolder as one room) the rooms: a loop of edges between
   rooms is an import circle, reported with the place that makes each edge.

Exit 0 when all hold, 1 with one line per difference otherwise, 2 when the check
itself cannot run. `--self-test` mutates a copy of the doc (an arrow drawn that does
not exist, a real arrow removed, an optional arrow drawn solid, a crate left out, a
stale name) and asserts that each mutation is caught with a message naming it; and
writes a small crate to a temporary folder, with and without import circles, and
asserts that each circle is caught, a module without its file is caught, and the crate
without either passes.

Usage: scripts/check_architecture.py [--doc PATH] [--self-test]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DOC = os.path.join(ROOT, "docs", "architecture.md")
GRAPH_MARKER = "<!-- check_architecture: crate graph -->"

# Backticked words in CamelCase that are not Rust items of this workspace: the
# standard library's, and words that are no items at all.
NOT_ITEMS = {
    "NaN", "Vec", "Option", "Some", "None", "Result", "Ok", "Err", "Box", "String", "Default",
    "Clone", "Copy", "Debug", "Send", "Sync", "Iterator", "IntoIterator", "FnMut", "Fn",
    "FnOnce", "HashMap", "HashSet", "BTreeMap", "Arc", "Rc", "Infallible", "Read", "Write",
    "BufRead", "Path", "PathBuf", "Serialize", "Deserialize", "Self",
}


# --------------------------------------------------------------------------- cargo


def cargo_metadata() -> dict:
    try:
        out = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
    except (OSError, subprocess.CalledProcessError) as err:
        stderr = getattr(err, "stderr", "") or ""
        sys.exit(f"check_architecture: `cargo metadata` failed: {err}\n{stderr}")
    return json.loads(out.stdout)


def real_graph(meta: dict) -> tuple[set[str], dict[tuple[str, str], bool]]:
    """Workspace packages and their normal dependencies on each other.

    Returns the package names and a map (from, to) -> optional.
    """
    members = set(meta["workspace_members"])
    packages = [p for p in meta["packages"] if p["id"] in members]
    names = {p["name"] for p in packages}
    edges: dict[tuple[str, str], bool] = {}
    for package in packages:
        for dep in package["dependencies"]:
            if dep["name"] not in names or dep.get("kind") is not None:
                continue  # external, or a dev- or build-dependency
            key = (package["name"], dep["name"])
            # Required anywhere wins over optional.
            edges[key] = edges.get(key, True) and bool(dep.get("optional"))
    return names, edges


def source_dirs(meta: dict) -> dict[str, str]:
    """Library (or binary) crate name -> its package's `src/` folder."""
    members = set(meta["workspace_members"])
    dirs: dict[str, str] = {}
    for package in meta["packages"]:
        if package["id"] not in members:
            continue
        src = os.path.join(os.path.dirname(package["manifest_path"]), "src")
        for target in package["targets"]:
            if "lib" in target["kind"] or "bin" in target["kind"]:
                dirs.setdefault(target["name"].replace("-", "_"), src)
        dirs.setdefault(package["name"].replace("-", "_"), src)
    return dirs


# --------------------------------------------------------------------------- the doc's graph

NODE = re.compile(r'([A-Za-z_][\w]*)\s*\[\s*"?([^"\]]+?)"?\s*\]')
EDGE = re.compile(r"^(.+?)\s*(-\.->|-->)\s*(.+)$")


def doc_graph(text: str) -> tuple[set[str], dict[tuple[str, str], bool], list[str]]:
    """The packages and edges drawn in the marked mermaid block, and parse errors."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == GRAPH_MARKER)
    except StopIteration:
        return set(), {}, [f"no line `{GRAPH_MARKER}` before the crate graph"]
    fence = next((i for i in range(start + 1, len(lines)) if lines[i].strip()), None)
    if fence is None or not lines[fence].strip().startswith("```mermaid"):
        return set(), {}, ["the crate graph marker is not followed by a ```mermaid block"]
    errors: list[str] = []
    labels: dict[str, str] = {}
    raw_edges: list[tuple[str, str, bool, int]] = []
    end = fence + 1
    while end < len(lines) and not lines[end].strip().startswith("```"):
        line = lines[end].split("%%")[0].strip()
        number = end + 1
        end += 1
        if not line or line.startswith(("graph", "flowchart", "classDef", "class ", "style ")):
            continue
        if line.startswith("subgraph") or line == "end" or line.startswith("direction"):
            continue
        # Node definitions, standalone or inside an edge line.
        for node_id, label in NODE.findall(line):
            label = label.strip()
            if node_id in labels and labels[node_id] != label:
                errors.append(f"line {number}: node `{node_id}` labelled twice")
            labels[node_id] = label
        edge = EDGE.match(line)
        if edge is None:
            if not NODE.fullmatch(line):
                errors.append(f"line {number}: cannot read `{line}` (a node `id[\"name\"]` or an edge `a --> b`)")
            continue
        source = NODE.sub(r"\1", edge.group(1)).strip()
        optional = edge.group(2) == "-.->"
        for target in NODE.sub(r"\1", edge.group(3)).split("&"):
            raw_edges.append((source, target.strip(), optional, number))
    names = set(labels.values())
    edges: dict[tuple[str, str], bool] = {}
    for source, target, optional, number in raw_edges:
        if source not in labels or target not in labels:
            unknown = source if source not in labels else target
            errors.append(f"line {number}: node `{unknown}` has no label `{unknown}[\"package\"]`")
            continue
        key = (labels[source], labels[target])
        if key in edges:
            errors.append(f"line {number}: {key[0]} -> {key[1]} drawn twice")
        edges[key] = optional
    return names, edges, errors


def graph_differences(meta: dict, text: str) -> list[str]:
    real_names, real_edges = real_graph(meta)
    names, edges, problems = doc_graph(text)
    problems = [f"crate graph: {p}" for p in problems]
    for name in sorted(real_names - names):
        problems.append(f"crate graph: workspace package `{name}` is missing from the diagram")
    for name in sorted(names - real_names):
        problems.append(f"crate graph: `{name}` is drawn but is no workspace package")

    def kind(optional: bool) -> str:
        return "an optional dependency (dotted -.->)" if optional else "a required dependency (solid -->)"

    for (a, b), optional in sorted(edges.items()):
        if (a, b) not in real_edges:
            problems.append(
                f"crate graph: {a} -> {b} is drawn, but {a} has no normal dependency on {b}"
            )
        elif real_edges[(a, b)] != optional:
            problems.append(
                f"crate graph: {a} -> {b} is drawn as {kind(optional)}, "
                f"but it is {kind(real_edges[(a, b)])}"
            )
    for (a, b), optional in sorted(real_edges.items()):
        if (a, b) not in edges and a in names and b in names:
            problems.append(
                f"crate graph: {a} depends on {b} ({kind(optional)}), but no arrow is drawn"
            )
        elif (a, b) not in edges:
            problems.append(f"crate graph: {a} depends on {b}, not drawn (a crate is missing)")
    return problems


# --------------------------------------------------------------------------- sources


def strip_rust(code: str, keep_lines: bool = False) -> str:
    """Code with comments, string and char literals blanked (braces inside them too);
    with `keep_lines`, the line breaks inside them are kept (line numbers hold)."""
    out = []

    def blank(start: int, end: int, fill: str) -> None:
        out.append(fill + ("\n" * code.count("\n", start, end) if keep_lines else ""))

    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if code.startswith("//", i):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif code.startswith("/*", i):
            start, depth, i = i, 1, i + 2
            while i < n and depth:
                if code.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif code.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            blank(start, i, " ")
        elif c == "r" and re.match(r'r#*"', code[i:]) and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")):
            start = i
            hashes = re.match(r"r(#*)\"", code[i:]).group(1)
            j = code.find('"' + hashes, i + len(hashes) + 2)
            i = n if j < 0 else j + 1 + len(hashes)
            blank(start, i, '""')
        elif c == '"':
            start = i
            i += 1
            while i < n and code[i] != '"':
                i += 2 if code[i] == "\\" else 1
            i += 1
            blank(start, i, '""')
        elif c == "'" and re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", code[i:]):
            i += len(re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", code[i:]).group(0))
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


ITEM = re.compile(
    r"\b(pub(?:\s*\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern\s+\"C\")\s+)*"
    r"(struct|enum|trait|fn|type|const|static|mod|union)\s+([A-Za-z_]\w*)"
)
PUB_USE = re.compile(r"\bpub\s+use\s+([^;]+);")
MACRO = re.compile(r"macro_rules!\s*([A-Za-z_]\w*)")
BRACE = re.compile(r"[{}]")


class Sources:
    """Definitions found in the `src/` folders of the workspace."""

    def __init__(self, dirs: dict[str, str]):
        self.dirs = dirs
        self.code: dict[str, str] = {}  # path -> stripped code
        self.public: dict[str, set[str]] = {}  # crate -> public names (items and re-exports)
        self.defined: set[str] = set()  # every item name, any visibility
        self.modules: set[str] = set()
        # type name -> its bodies: the self-test checks many mutated docs against
        # the same sources.
        self._bodies: dict[str, list[str]] = {}
        seen: set[str] = set()
        for crate, src in sorted(dirs.items()):
            names = self.public.setdefault(crate, set())
            if src in seen:
                # Two targets of one package: share the names.
                other = next(c for c, s in dirs.items() if s == src and c in self.public and c != crate)
                self.public[crate] = self.public[other]
                continue
            seen.add(src)
            for folder, _, files in os.walk(src):
                for file in sorted(files):
                    if not file.endswith(".rs"):
                        continue
                    path = os.path.join(folder, file)
                    with open(path, encoding="utf-8") as handle:
                        code = strip_rust(handle.read())
                    self.code[path] = code
                    for visibility, kind, name in ITEM.findall(code):
                        self.defined.add(name)
                        if kind == "mod":
                            self.modules.add(name)
                        if visibility.strip() == "pub":
                            names.add(name)
                    for statement in PUB_USE.findall(code):
                        for alias in re.findall(r"\bas\s+([A-Za-z_]\w*)", statement):
                            names.add(alias)
                        for word in re.findall(r"[A-Za-z_]\w*", statement):
                            if word not in ("self", "super", "crate", "as"):
                                names.add(word)
                    for name in MACRO.findall(code):
                        names.add(name)
                        self.defined.add(name)

    def bodies(self, type_name: str) -> list[str]:
        """Definitions and impl blocks of a type (or trait) named `type_name`."""
        heads = re.compile(
            r"\b(?:(?:struct|enum|trait|union)\s+" + type_name + r"\b[^{;]*"
            r"|impl\b[^{;]*?\b" + type_name + r"\b[^{;]*)\{"
        )
        if type_name in self._bodies:
            return self._bodies[type_name]
        found = []
        for code in self.code.values():
            for head in heads.finditer(code):
                depth, end = 1, len(code)
                for brace in BRACE.finditer(code, head.end()):
                    depth += 1 if brace.group() == "{" else -1
                    if not depth:
                        end = brace.end()
                        break
                found.append(code[head.end() : end])
        self._bodies[type_name] = found
        return found

    def has_member(self, type_name: str, member: str) -> bool:
        member_re = re.compile(
            r"\b(?:fn|const|type)\s+" + member + r"\b"  # method, constant, associated type
            r"|(?:^|[{,(])\s*(?:pub(?:\s*\([^)]*\))?\s+)?" + member + r"\s*[:,({}]"  # field, variant
            r"|(?:^|[{,])\s*" + member + r"\s*(?:=|$)",  # unit or valued variant
            re.M,
        )
        return any(member_re.search(body) for body in self.bodies(type_name))


# --------------------------------------------------------------------------- the doc's names

CODE_SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+")
CAMEL = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+$|^[A-Z][a-z0-9]+[a-z0-9]*$")
BARE = re.compile(r"^([A-Z]\w*)(<[^`]*>)?$")
EXTERNAL_CRATES = {"std", "core", "alloc", "serde", "rayon", "timely", "differential_dataflow", "clap"}


def code_spans(text: str):
    """(line number, span) for each inline code span outside fenced blocks."""
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence:
            for span in CODE_SPAN.findall(line):
                yield number, span.strip()


def name_differences(meta: dict, text: str, sources: Sources | None = None) -> list[str]:
    sources = sources or Sources(source_dirs(meta))
    crates = set(sources.public)
    problems = []
    for number, span in code_spans(text):
        path = PATH.match(span)
        if path:
            rest = span[path.end() :]
            if rest and not re.match(r"^(\(.*\)|<.*>|\[[^\]]*\]|!?)$", rest):
                continue  # an expression, not a name
            problem = check_path(path.group(0).split("::"), crates, sources)
            if problem:
                problems.append(f"names: line {number}: `{span}`: {problem}")
            continue
        bare = BARE.match(span)
        if bare and CAMEL.match(bare.group(1)) and bare.group(1) not in NOT_ITEMS:
            for word in re.findall(r"\b[A-Z][A-Za-z0-9]+\b", span):
                if CAMEL.match(word) and word not in NOT_ITEMS and word not in sources.defined:
                    problems.append(f"names: line {number}: `{span}`: no item `{word}` in the sources")
    return problems


def check_path(segments: list[str], crates: set[str], sources: Sources) -> str | None:
    first = segments[0]
    if first in ("crate", "self", "super") or first in EXTERNAL_CRATES:
        return None
    if first in crates:
        crate, inner = first, segments[1:]
        if first == "near_dup" and len(inner) >= 2 and inner[0] in sources.public["near_dup"]:
            # `near_dup::x::Item` goes through the facade's re-export of `ndd_x`.
            target = "ndd_" + inner[0]
            if target in crates:
                crate, inner = target, inner[1:]
        last = inner[-1]
        if len(inner) >= 2 and inner[-2][:1].isupper():
            if not sources.has_member(inner[-2], last):
                return f"`{inner[-2]}` has no member `{last}`"
            return None
        if last not in sources.public[crate]:
            return f"crate `{crate}` has no public item or re-export `{last}`"
        return None
    if first[:1].isupper():
        # Type::member (or Type::Variant, Trait::method).
        if first not in sources.defined:
            return f"no type `{first}` in the sources"
        if not sources.has_member(first, segments[1]):
            return f"`{first}` has no member `{segments[1]}`"
        return None
    if first in sources.modules:
        if segments[-1] not in sources.defined:
            return f"no item `{segments[-1]}` in the sources"
        return None
    return None  # a path into a crate outside the workspace


# --------------------------------------------------------------------------- main


# --------------------------------------------------------------------------- import circles

# `mod name;` or `mod name { ... }`, with the attributes before it.
MOD_DECL = re.compile(
    r"((?:#\[[^\]]*\]\s*)*)(?:\bpub\s*(?:\([^)]*\)\s*)?)?\bmod\s+([A-Za-z_]\w*)\s*([;{])"
)
USE_DECL = re.compile(r"\buse\s+([^;]+);")
# `crate::a::b`, `super::super::c`, `self::d` in code (not `$crate::`, not `pub(super)`).
PATH_REF = re.compile(r"(?<![\w:$])(?:crate|super|self)(?:\s*::\s*[A-Za-z_]\w*)+")
CFG_TEST = re.compile(r"#\[\s*cfg\s*\(\s*(?:all\s*\(\s*)?test\b")


class Module:
    """One module of a crate: its path from the crate root, the file that holds it (its
    own file, or the file where it is written inline) and its children by name."""

    def __init__(self, path: tuple[str, ...], file: str):
        self.path = path
        self.file = file
        self.children: dict[str, "Module"] = {}


def use_paths(tree: str) -> list[list[str]]:
    """The paths a `use` tree names: `crate::a::{b::C, d, self}` gives crate::a::b::C,
    crate::a::d and crate::a."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+[A-Za-z_]\w*", "", tree))

    def expand(text: str) -> list[list[str]]:
        brace = text.find("{")
        if brace < 0:
            return [[seg for seg in text.split("::") if seg and seg != "*"]]
        prefix = [seg for seg in text[:brace].split("::") if seg]
        inner, depth, part, parts = text[brace + 1 : text.rindex("}")], 0, "", []
        for ch in inner:
            if ch == "," and depth == 0:
                parts.append(part)
                part = ""
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            part += ch
        parts.append(part)
        out = []
        for item in parts:
            if not item:
                continue
            for rest in expand(item):
                out.append(prefix + [seg for seg in rest if seg != "self"])
        return out

    return [p for p in expand(tree) if p]


def crate_modules(
    root_file: str,
) -> tuple[Module, list[tuple[str, int, tuple[str, ...], list[str]]], list[str]]:
    """The module tree of the crate whose root is `root_file`, every path the crate
    names from `crate`, `super` or `self`: (file, line, module the path is written in,
    segments), and one message per `mod name;` whose file is found at neither
    `name.rs` nor `name/mod.rs`. Test modules (`#[cfg(test)]`) are left out: tests may
    reach anywhere."""
    root = Module((), root_file)
    refs: list[tuple[str, int, tuple[str, ...], list[str]]] = []
    missing: list[str] = []

    def load(module: Module, child_dir: str) -> None:
        with open(module.file, encoding="utf-8") as handle:
            code = strip_rust(handle.read(), keep_lines=True)
        # Inline modules: (brace depth at which they close, module, its child folder).
        scopes: list[tuple[int, Module, str]] = [(-1, module, child_dir)]
        depth = 0
        skip_until: int | None = None  # inside a test module: depth where it closes
        pattern = re.compile(
            MOD_DECL.pattern + r"|(\{)|(\})|" + USE_DECL.pattern + "|(" + PATH_REF.pattern + ")"
        )
        for m in pattern.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            if m.group(4):
                depth += 1
                continue
            if m.group(5):
                depth -= 1
                if skip_until is not None and depth < skip_until:
                    skip_until = None
                while len(scopes) > 1 and depth < scopes[-1][0]:
                    scopes.pop()
                continue
            if skip_until is not None:
                continue
            _, scope, folder = scopes[-1]
            if m.group(2):
                attrs, name, end = m.group(1), m.group(2), m.group(3)
                if CFG_TEST.search(attrs):
                    if end == "{":
                        depth += 1
                        skip_until = depth
                    continue
                if end == "{":
                    depth += 1
                    child = Module(scope.path + (name,), module.file)
                    scope.children[name] = child
                    scopes.append((depth, child, os.path.join(folder, name)))
                    continue
                flat = os.path.join(folder, name + ".rs")
                nested = os.path.join(folder, name, "mod.rs")
                found = next((f for f in (flat, nested) if os.path.isfile(f)), None)
                if found is None:
                    # Not followed, the crate's files would go unchecked: say so.
                    module_path = "::".join(scope.path + (name,))
                    attribute = " (a #[path] attribute is not followed)" if "#[path" in attrs else ""
                    missing.append(
                        f"module `{module_path}` ({os.path.relpath(module.file, ROOT)}:{line}) "
                        f"has no file: tried {os.path.relpath(flat, ROOT)}, "
                        f"{os.path.relpath(nested, ROOT)}{attribute}"
                    )
                    continue
                child = Module(scope.path + (name,), found)
                scope.children[name] = child
                load(child, os.path.join(folder, name))
                continue
            texts = use_paths(m.group(6)) if m.group(6) else [re.sub(r"\s+", "", m.group(7)).split("::")]
            for segments in texts:
                if segments[0] in ("crate", "super", "self"):
                    refs.append((module.file, line, scope.path, segments))

    load(root, os.path.dirname(root_file))
    return root, refs, missing


def module_at(root: Module, path: tuple[str, ...]) -> Module | None:
    node = root
    for name in path:
        node = node.children.get(name)
        if node is None:
            return None
    return node


def resolve(root: Module, scope: tuple[str, ...], segments: list[str]) -> Module | None:
    """The deepest module a path names (re-exports are not followed: `crate::Error`
    names the crate root), or None when it leaves the crate."""
    path = list(scope)
    rest = list(segments)
    if rest[0] == "crate":
        path, rest = [], rest[1:]
    while rest and rest[0] in ("super", "self"):
        if rest[0] == "super":
            if not path:
                return None
            path.pop()
        rest = rest[1:]
    node = module_at(root, tuple(path))
    if node is None:
        return None
    for name in rest:
        child = node.children.get(name)
        if child is None:
            break
        node = child
    return node


def file_modules(root: Module) -> dict[str, tuple[str, ...]]:
    """Each file of the crate -> the module it is the file of (not its inline ones)."""
    out: dict[str, tuple[str, ...]] = {}

    def walk(node: Module) -> None:
        out.setdefault(node.file, node.path)
        for child in node.children.values():
            walk(child)

    walk(root)
    return out


def import_edges(root: Module, refs) -> dict[tuple[str, str], tuple[str, int, str]]:
    """File -> file edges, each with one place that makes it. A file's paths into its
    own submodules (its `mod` declarations and re-exports: a folder's face, as
    `lib.rs` and `mod.rs` are) are not edges."""
    file_module = file_modules(root)
    edges: dict[tuple[str, str], tuple[str, int, str]] = {}
    for file, line, scope, segments in refs:
        target = resolve(root, scope, segments)
        if target is None or target.file == file:
            continue
        own = file_module[file]
        if target.path[: len(own)] == own:
            continue  # into its own submodules
        edges.setdefault((file, target.file), (file, line, "::".join(segments)))
    return edges


def file_circles(root: Module, edges) -> list[tuple[str, list[str]]]:
    """Import circles at every folder level, as `farm-studio look FOLDER` draws them:
    the rooms of a module are its own file and each child module with everything
    below it (one room); a circle is a loop of edges between rooms. Each circle as
    lines (the rooms, then each edge with the place that makes it) with the folder."""
    file_module = file_modules(root)
    circles: list[tuple[str, list[str]]] = []

    def level(node: Module) -> None:
        def room(file: str) -> str | None:
            path = file_module[file]
            if path[: len(node.path)] != node.path:
                return None
            if len(path) == len(node.path):
                return os.path.basename(node.file)
            child = node.children[path[len(node.path)]]
            return child.path[-1] + ("/" if child.children else ".rs")

        graph: dict[str, dict[str, tuple[str, int, str]]] = {}
        for (a, b), where in sorted(edges.items()):
            ra, rb = room(a), room(b)
            if ra is None or rb is None or ra == rb:
                continue
            graph.setdefault(ra, {}).setdefault(rb, where)
        for component in strongly_connected(graph):
            if len(component) < 2:
                continue
            lines = [" -> ".join(sorted(component))]
            for a in sorted(component):
                for b, (file, line, path) in sorted(graph.get(a, {}).items()):
                    if b in component:
                        lines.append(f"{a} -> {b}: {os.path.relpath(file, ROOT)}:{line} names `{path}`")
            face = os.path.basename(node.file)
            folder = os.path.dirname(node.file)
            if face not in ("lib.rs", "main.rs", "mod.rs"):
                folder = os.path.join(folder, face[: -len(".rs")])
            circles.append((folder, lines))
        for child in node.children.values():
            if child.children:
                level(child)

    level(root)
    return circles


def strongly_connected(graph: dict[str, dict[str, object]]) -> list[set[str]]:
    """Tarjan's strongly connected components of `graph` (node -> successors)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    nodes = sorted(set(graph) | {b for succ in graph.values() for b in succ})

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            out.append(component)

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def crate_roots(meta: dict) -> list[tuple[str, str]]:
    """(package name, root file) of every library and binary of the workspace."""
    members = set(meta["workspace_members"])
    roots = []
    for package in meta["packages"]:
        if package["id"] not in members:
            continue
        for target in package["targets"]:
            if "lib" in target["kind"] or "bin" in target["kind"]:
                roots.append((package["name"], target["src_path"]))
    return sorted(set(roots))


def circle_differences(roots: list[tuple[str, str]]) -> list[str]:
    """One message per module file not found and per import circle between the files
    of a crate."""
    problems = []
    for name, root_file in roots:
        root, refs, missing = crate_modules(root_file)
        problems.extend(f"{name}: {m}" for m in missing)
        for folder, lines in file_circles(root, import_edges(root, refs)):
            folder = os.path.relpath(folder, ROOT)
            problems.append(
                f"{name}: import circle in {folder}: {lines[0]}"
                + "".join(f"\n      {line}" for line in lines[1:])
            )
    return problems


def check(meta: dict, text: str, sources: Sources | None = None) -> list[str]:
    return graph_differences(meta, text) + name_differences(meta, text, sources)


def self_test(meta: dict, text: str) -> int:
    """Mutate the doc in memory and assert that each mutation is reported."""
    sources = Sources(source_dirs(meta))
    base = check(meta, text, sources)
    if base:
        print("self-test: the doc itself does not pass; fix it first", file=sys.stderr)
        return 1
    _, labels_edges, _ = doc_graph(text)
    block = text[text.index(GRAPH_MARKER) :]
    ids = {label: node_id for node_id, label in NODE.findall(block.split("```")[1])}
    real_names, real_edges = real_graph(meta)
    required = next(e for e, opt in sorted(real_edges.items()) if not opt and e[0] != "near-dup")
    optional = next(e for e, opt in sorted(real_edges.items()) if opt)
    missing = next(
        (b, a) for (a, b) in sorted(real_edges) if (b, a) not in real_edges and b != a
    )

    def add_line(line: str) -> str:
        head, _, tail = text.partition(GRAPH_MARKER)
        fence_end = tail.index("```", tail.index("```mermaid") + 3)
        return head + GRAPH_MARKER + tail[:fence_end] + line + "\n" + tail[fence_end:]

    def drop_edge(a: str, b: str, solid: bool = False) -> str:
        out = []
        in_block = False
        for line in text.splitlines(keepends=True):
            if line.strip() == GRAPH_MARKER:
                in_block = True
            elif in_block and line.strip() == "```":
                in_block = False
            edge = EDGE.match(line.strip()) if in_block else None
            if edge and NODE.sub(r"\1", edge.group(1)).strip() == ids[a]:
                targets = [t.strip() for t in NODE.sub(r"\1", edge.group(3)).split("&")]
                if ids[b] in targets:
                    rest = [t for t in targets if t != ids[b]]
                    indent = line[: len(line) - len(line.lstrip())]
                    if rest:
                        out.append(f"{indent}{ids[a]} {edge.group(2)} {' & '.join(rest)}\n")
                    if solid:
                        out.append(f"{indent}{ids[a]} --> {ids[b]}\n")
                    continue
            out.append(line)
        return "".join(out)

    removed_crate = "ndd-scale"
    cases = [
        (
            "a false arrow",
            add_line(f"    {ids[missing[0]]} --> {ids[missing[1]]}"),
            f"{missing[0]} -> {missing[1]} is drawn, but {missing[0]} has no normal dependency on {missing[1]}",
        ),
        (
            "a real arrow removed",
            drop_edge(*required),
            f"{required[0]} depends on {required[1]} (a required dependency (solid -->)), but no arrow is drawn",
        ),
        (
            "an optional arrow drawn solid",
            drop_edge(*optional, solid=True),
            f"{optional[0]} -> {optional[1]} is drawn as a required dependency (solid -->), but it is an optional",
        ),
        (
            "a crate left out",
            re.sub(r"^.*\b" + ids[removed_crate] + r"\b.*\n", "", text, flags=re.M),
            f"workspace package `{removed_crate}` is missing from the diagram",
        ),
        (
            "a stale method",
            text + "\nThe tool copies records with `Dedup::copy_lines`.\n",
            "`Dedup::copy_lines`: `Dedup` has no member `copy_lines`",
        ),
        (
            "a stale crate path",
            text + "\nSee `ndd_pipeline::NoSuchReader`.\n",
            "crate `ndd_pipeline` has no public item or re-export `NoSuchReader`",
        ),
        (
            "a stale type",
            text + "\nThe `NoSuchIndex<K>` holds them.\n",
            "no item `NoSuchIndex` in the sources",
        ),
    ]
    failed = 0
    for what, mutated, expected in cases:
        failed += self_test_case(what, expected, check(meta, mutated, sources))
    assert labels_edges and real_names
    failed += circle_self_test()
    return 1 if failed else 0


# A crate written to a temporary folder for the circle check's self-test: its files by
# path under `src/`.
CIRCLE_CRATE = {
    "lib.rs": "pub mod a;\npub mod b;\nmod c;\npub use a::A;\n#[cfg(test)]\nmod tests {\n    use crate::c::C;\n}\n",
    "a.rs": "//! Uses b.\nuse crate::b::B;\npub struct A(pub B);\n",
    "b.rs": "pub mod inner;\npub struct B;\n",
    "b/inner.rs": "use super::super::{A, c::{self, C}};\npub fn f() -> u8 {\n    /* crate::a::A */\n    crate::b::g()\n}\n",
    "c.rs": "pub struct C;\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n",
}


def circle_self_test() -> int:
    """Writes a small crate to a temporary folder and checks that the circle check
    passes it and catches each import circle written into it. Returns the failures."""
    import tempfile

    cases = [
        ("no circle (faces, comments, tests and re-exports are not edges)", {}, None),
        (
            "a circle between two files",
            {"c.rs": "use crate::a::A;\npub struct C;\n"},
            "import circle in src: a.rs -> b/ -> c.rs",
        ),
        (
            "a circle through a path in code",
            {
                "a.rs": "pub struct A;\npub fn f() { crate::b::inner::f(); }\n",
                "c.rs": "pub struct C(crate::a::A);\n",
            },
            "a.rs -> b/: ",
        ),
        (
            "a circle inside a folder",
            {
                "b.rs": "pub mod inner;\npub mod other;\npub struct B;\n",
                "b/other.rs": "pub fn g() { super::inner::f(); }\n",
                "b/inner.rs": "pub fn f() { self::super::other::g(); }\n",
            },
            "import circle in src/b: inner.rs -> other.rs",
        ),
        (
            "a module without its file",
            {"b.rs": "pub mod inner;\npub mod gone;\npub struct B;\n"},
            "t: module `b::gone` (src/b.rs:2) has no file: tried src/b/gone.rs, src/b/gone/mod.rs",
        ),
    ]
    failed = 0
    for what, changes, expected in cases:
        with tempfile.TemporaryDirectory(prefix="check_architecture.") as folder:
            files = {**CIRCLE_CRATE, **changes}
            for name, body in files.items():
                path = os.path.join(folder, "src", name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(body)
            lib = os.path.join(folder, "src", "lib.rs")
            problems = [p.replace(os.path.relpath(folder, ROOT) + "/", "") for p in circle_differences([("t", lib)])]
        failed += self_test_case(what, expected, problems)
    return failed


def self_test_case(what: str, expected: str | None, problems: list[str]) -> int:
    """Prints whether a self-test case came out right: a problem holding `expected`, or
    none when `expected` is None. Returns 1 when it did not, else 0."""
    if any(expected in p for p in problems) if expected else not problems:
        print(f"self-test: {what}: {'caught' if expected else 'passed'}")
        return 0
    wanted = f"expected `{expected}`" if expected else "expected no problem"
    print(f"self-test: {what}: NOT as {wanted}, got:", file=sys.stderr)
    for p in problems:
        print(f"  {p}", file=sys.stderr)
    return 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--doc", default=DEFAULT_DOC, help="the document to check")
    parser.add_argument("--self-test", action="store_true", help="check that the checker catches drift")
    args = parser.parse_args()
    meta = cargo_metadata()
    with open(args.doc, encoding="utf-8") as handle:
        text = handle.read()
    if args.self_test:
        return self_test(meta, text)
    problems = check(meta, text)
    doc = os.path.relpath(args.doc, ROOT)
    if doc.startswith(".."):
        doc = args.doc
    reports = [
        (
            f"{doc} disagrees with the code",
            problems,
            "Fix the doc (or the code); the crate graph lists normal dependencies between "
            "workspace packages, optional ones dotted.",
        ),
        (
            "module files not found, import circles between the files of a crate",
            circle_differences(crate_roots(meta)),
            "A module's file is `name.rs` or `name/mod.rs` beside its parent's. Files of a "
            "crate import one way (docs/architecture.md): move what both sides use below them.",
        ),
    ]
    failed = False
    for title, found, advice in reports:
        if found:
            failed = True
            print(f"{title} ({len(found)}):", file=sys.stderr)
            for problem in found:
                print(f"  {problem}", file=sys.stderr)
            print(advice, file=sys.stderr)
    if failed:
        return 1
    print(f"{doc}: crate graph and names agree with the code; no import circle between files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
