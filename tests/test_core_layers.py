"""The C core's units are layers (issue 53, item 8): csrc/internal.h lists
the units of csrc/ bottom up, and a unit uses only the units listed before
it -- no two units call each other, directly or around a circle.

The check reads the sources, not the build: comments, strings and character
constants stripped, each non-static function (and variable) is owned by the
.c file that defines it, and a unit *uses* it when the name appears in one
of its function bodies or initialisers (a call, or a pointer taken).  A
static inline function or a macro of a header is part of each unit that
uses it: what it names is counted for that unit.  csrc/SEMANTICS.md
("The core's layers") names the same order; the test holds the two equal."""
import re
from collections import defaultdict
from pathlib import Path

import pytest
from test_layers import _unit_cycles as cycles   # Tarjan's strongly connected groups

CSRC = Path(__file__).resolve().parents[1] / "csrc"
IDENT = re.compile(r"[A-Za-z_]\w*")
#: the declared order in internal.h: the lines between these two markers
BEGIN, END = "LAYERS (bottom up)", "END LAYERS"


def strip(text: str) -> str:
    """The C text without comments, strings and character constants (each
    string left as an empty one, line breaks kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.index("*/", i + 2)
            out.append("\n" * text.count("\n", i, j))
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse(text: str):
    """(functions: name -> names used in its body; the non-static ones; the
    variables defined at file level, non-static and static; the names used
    in file-level initialisers; macros: name -> the names in its body)."""
    text = strip(text)
    macros, lines, it = {}, [], iter(text.split("\n"))
    for line in it:
        if line.lstrip().startswith("#"):
            while line.endswith("\\"):
                line = line[:-1] + " " + next(it, "")
            m = re.match(r"\s*#\s*define\s+(\w+)(.*)", line)
            if m:
                macros[m.group(1)] = set(IDENT.findall(m.group(2)))
            line = ""
        lines.append(line)
    text = "\n".join(lines)
    funcs, public, variables, hidden, top = {}, set(), set(), set(), set()
    depth, start, i, n = 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            head = text[start:i].rstrip()
            j, depth, i = i, 1, i + 1
            while depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            body = text[j:i]
            m = re.search(r"(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*$", head)
            if m and "=" not in head:          # a function definition
                funcs[m.group(1)] = set(IDENT.findall(body))
                if not re.search(r"\bstatic\b", head):
                    public.add(m.group(1))
                start = i
            elif "=" in head:                  # an initialiser: its names are used
                top |= set(IDENT.findall(body))
            continue
        if c == ";":
            stmt = text[start:i]
            decl, _, init = stmt.partition("=")
            top |= set(IDENT.findall(init))
            d = decl.strip()
            if d and "(" not in d and not re.search(r"\b(extern|typedef)\b|\benum\b|\bstruct\s+\w+$", d):
                m = re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*$", d)
                if m:
                    (hidden if re.search(r"\bstatic\b", d) else variables).add(m.group(1))
            start = i + 1
        i += 1
    return funcs, public, variables, hidden, top, macros


def unit_graph(csrc: Path = CSRC):
    """unit -> used unit -> the names it uses there (units: .c file stems)."""
    inline: dict[str, set[str]] = {}
    for h in sorted(csrc.glob("*.h")):
        funcs, _, _, _, _, macros = parse(h.read_text(encoding="utf-8"))
        inline.update(macros)
        inline.update(funcs)
    owner, used = {}, {}
    for c in sorted(csrc.glob("*.c")):
        funcs, public, variables, hidden, top, _ = parse(c.read_text(encoding="utf-8"))
        owner.update({name: c.stem for name in public | variables})
        own = set(funcs) | variables | hidden  # a unit's own names shadow another's
        names, stack = set(), [x for body in list(funcs.values()) + [top] for x in body]
        while stack:                           # header inlines and macros, expanded
            x = stack.pop()
            if x not in names:
                names.add(x)
                if x in inline and x not in own:
                    stack.extend(inline[x])
        used[c.stem] = names - own
    edges: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for unit, names in used.items():
        for x in names:
            if owner.get(x, unit) != unit:
                edges[unit][owner[x]].add(x)
    return {u: dict(d) for u, d in edges.items()}, sorted(used)


def declared_order(csrc: Path = CSRC) -> list[str]:
    """The units listed in internal.h's LAYERS block, bottom up."""
    text = (csrc / "internal.h").read_text(encoding="utf-8")
    block = text[text.index(BEGIN):text.index(END)]
    return re.findall(r"^\s*\*\s+(\w+)\.c\b", block, re.M)


def upward(edges, order) -> list[str]:
    """Every use of a unit not listed before the user: 'a -> b: names'."""
    rank = {u: i for i, u in enumerate(order)}
    return [f"{a}.c -> {b}.c: {', '.join(sorted(names))}" for a in sorted(edges)
            for b, names in sorted(edges[a].items()) if rank.get(b, -1) >= rank.get(a, -1)]


def test_every_unit_is_declared_once():
    order = declared_order()
    _, units = unit_graph()
    assert len(order) == len(set(order)), order
    assert sorted(order) == units, f"internal.h's LAYERS block must list every csrc/*.c once: {order} vs {units}"


def test_no_unit_calls_into_one_that_calls_it_back():
    edges, _ = unit_graph()
    found = cycles(edges)
    assert not found, "units that call each other, directly or around a circle:\n" + "\n".join(
        f"{group}: " + "; ".join(f"{a} -> {b}" for a in group for b in sorted(edges[a]) if b in group)
        for group in found)


def test_units_call_only_the_layers_below_them():
    edges, _ = unit_graph()
    bad = upward(edges, declared_order())
    assert not bad, "calls against the order of internal.h's LAYERS block:\n" + "\n".join(bad)


def test_semantics_names_the_same_order():
    text = (CSRC / "SEMANTICS.md").read_text(encoding="utf-8")
    section = text[text.index("## The core's layers"):]
    section = section[:section.find("\n## ", 3)] if "\n## " in section[3:] else section
    listed = re.findall(r"^\d+\.\s+`(\w+)\.c`", section, re.M)
    assert listed == declared_order()


@pytest.mark.parametrize("source, expected", [
    # a call, a pointer taken, and a call through a header's inline function
    ({"a.c": "int fa(void) { return 1; }\n",
      "b.c": "int fa(void);\nstatic int (*p)(void) = fa;\nint fb(void) { return 2; }\n",
      "c.c": '#include "x.h"\nint fc(void) { return via(); /* fb() */ }\n',
      "x.h": "static inline int via(void) { return fb(); }\n#define M(x) fa()\n"},
     {"b": {"a": {"fa"}}, "c": {"b": {"fb"}}}),
    # a static function of one unit is not the same-named function of another;
    # names in strings and comments are not uses
    ({"a.c": "static int g(void) { return 0; }\nint h(void) { return g(); }\n",
      "b.c": 'int g(void) { return 1; }\nint k(void) { const char *s = "h()"; return g(); }\n'},
     {}),
])
def test_the_reader_finds_uses(tmp_path, source, expected):
    for name, text in source.items():
        (tmp_path / name).write_text(text)
    edges, _ = unit_graph(tmp_path)
    assert edges == expected


def test_the_reader_finds_a_cycle():
    edges = {"a": {"b": {"x"}}, "b": {"c": {"y"}}, "c": {"a": {"z"}}, "d": {"a": {"w"}}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert upward(edges, ["a", "b", "c", "d"]) == ["a.c -> b.c: x", "b.c -> c.c: y"]
