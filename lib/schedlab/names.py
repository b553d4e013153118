"""Names are data: one escaping helper per target a user-supplied name can
reach (pure Python, no compiled core).

A log's file name, a trace spec, a study or parameter value, a scorecard's
text: each is shown in HTML pages, in Markdown tables that Jupyter and
nbconvert render as HTML, in JSON embedded in a page, and names folders and
campaign caches.  Every writer goes through the helper of its target here,
so that a name such as ``<img src=x onerror=...>.swf``, ``x';>pwned;'``,
``...swf`` or ``a\\b`` is shown as the text it is and never becomes markup,
code or a path:

* :func:`html_text`: text in HTML (element content or a quoted attribute);
* :func:`md_cell` / :func:`md_uncell`: one cell of a Markdown table, and back;
* :func:`md_text`: a line of Markdown prose (a title, a note) whose own
  emphasis is kept but which carries no HTML;
* :func:`script_json`: JSON inside ``<script type="application/json">``;
* :func:`component`: one path component (a results folder) that cannot
  climb, hide, separate or need quoting: the name itself when already safe;
* :func:`campaign_part`: a name inside a campaign name (which names a cache
  folder): only what :func:`schedlab.campaigns.spec.check_name` refuses is
  replaced, so every name that ran before keeps its cache.
"""
from __future__ import annotations

import html
import json
import re

__all__ = ["html_text", "md_cell", "md_uncell", "md_text", "script_json", "component", "campaign_part",
           "markdown_output", "inert_outputs",
           "SAFE_COMPONENT"]


def html_text(value) -> str:
    """``value`` as HTML text: ``& < > " '`` as character references (safe
    in element content and in a quoted attribute value)."""
    return html.escape(str(value), quote=True)


# Markdown characters that could open markup in a table cell: raw HTML or
# an autolink (< and &; a lone > opens nothing), a link or an image ([ ]),
# code (`), the backslash escape, the column bar, emphasis and
# strike-through (* _ ~).
_MD_CELL = {"&": "&amp;", "<": "&lt;", "[": "&#91;", "]": "&#93;", "\\": "&#92;", "`": "&#96;",
            "|": "\\|", "*": "\\*", "_": "\\_", "~": "\\~"}
_MD_CELL_RE = re.compile(r"[&<\[\]\\`|*_~]")
_MD_UNESCAPE = re.compile(r"\\([|*_~])")


def md_cell(value) -> str:
    """``value`` as the text of one Markdown table cell, shown as it is by a
    CommonMark renderer: character references for the characters that open
    HTML, links or code, backslash escapes for the bar and for emphasis,
    line breaks as spaces."""
    text = re.sub(r"[\r\n\u2028\u2029]+", " ", str(value))
    return _MD_CELL_RE.sub(lambda m: _MD_CELL[m.group(0)], text)


def md_uncell(shown: str) -> str:
    """The text :func:`md_cell` escaped (also reads cells written before it
    escaped more than the bar)."""
    return html.unescape(_MD_UNESCAPE.sub(r"\1", shown))


def md_text(value) -> str:
    """A line of Markdown prose (a title, a note) shown as it is: the
    escapes of :func:`md_cell` (no HTML, link, code or emphasis from a name
    in it), except that a leading list marker (``* ``, ``- ``) stays one."""
    text = re.sub(r"[\r\n\u2028\u2029]+", " ", str(value))
    lead = text[:2] if text[:2] in ("* ", "- ") else ""
    return lead + _MD_CELL_RE.sub(lambda m: "|" if m.group(0) == "|" else _MD_CELL[m.group(0)], text[len(lead):])


def script_json(obj) -> str:
    """JSON to embed in ``<script type="application/json">``: no ``<``,
    ``>`` or ``&`` (no ``</script>``, ``<!--`` or ``<script`` can end or
    change the element) and no U+2028/U+2029; ``JSON.parse`` reads it back
    unchanged."""
    text = json.dumps(obj, ensure_ascii=False)
    for ch, rep in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029")):
        text = text.replace(ch, rep)
    return text


#: The characters a path component keeps; every other one becomes ``_``.
SAFE_COMPONENT = "A-Za-z0-9@,=+._:-"
_UNSAFE = re.compile(f"[^{SAFE_COMPONENT}]")


def component(name, max_len: int = 120, empty: str = "unnamed") -> str:
    """``name`` as one path component: characters outside
    :data:`SAFE_COMPONENT` (separators, blanks, quotes, control characters,
    ``$`` ...) as ``_``, leading dots as ``_`` (never ``.``, ``..`` or a
    hidden name), at most ``max_len`` characters, ``empty`` for nothing left.
    A name already safe is returned unchanged (the registry's names, so that
    their folders and caches keep their names)."""
    text = _UNSAFE.sub("_", str(name))[:max_len]
    stripped = text.lstrip(".")
    text = "_" * (len(text) - len(stripped)) + stripped
    return text or empty


def campaign_part(name) -> str:
    """``name`` inside a campaign name: path separators (``/``, ``\\``) and
    characters that are not printable (a newline) as ``_``, leading dots as
    ``_``; any other name unchanged (its cache folder keeps its name)."""
    text = "".join(ch if ch.isprintable() and ch not in "/\\" else "_" for ch in str(name))
    stripped = text.lstrip(".")
    return ("_" * (len(text) - len(stripped)) + stripped) or "unnamed"


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_INLINE_DEST = re.compile(r"\]\(\s*<?([^)\s>]*)")
_REF_DEF = re.compile(r"^( {0,3})\[([^\]\n]+)\]:[ \t]*<?(\S*)", re.M)
_SAFE_SCHEMES = ("http", "https", "mailto")


def _harmful(dest: str) -> bool:
    text = re.sub(r"[\x00-\x20]", "", html.unescape(dest))
    m = _SCHEME.match(text)
    return bool(m) and m.group(1).lower() not in _SAFE_SCHEMES


def markdown_output(md: str) -> str:
    """A Markdown *output* of an executed notebook (what its code displayed,
    which may carry names) made inert before it is exported as HTML: every
    ``<`` as ``&lt;`` (no raw HTML: a text such as ``<P_R>`` is shown, not
    swallowed as a tag) and every link or image whose target has a scheme
    other than http(s) or mailto (``javascript:``, ``data:`` ...) shown as
    text.  The notebook's own Markdown cells are not outputs and keep their
    HTML."""
    out = md.replace("<", "&lt;")
    out = _INLINE_DEST.sub(lambda m: ("&#93;(" + m.group(0)[2:]) if _harmful(m.group(1)) else m.group(0), out)
    return _REF_DEF.sub(lambda m: (m.group(1) + "&#91;" + m.group(2) + "&#93;:" + m.group(0).split("]:", 1)[1])
                        if _harmful(m.group(3)) else m.group(0), out)


def inert_outputs(nb) -> None:
    """:func:`markdown_output` on every Markdown output of notebook ``nb``
    (an ``nbformat`` node, changed in place), before an HTML export."""
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = o.get("data") or {}
            md = data.get("text/markdown")
            if md is not None:
                data["text/markdown"] = markdown_output("".join(md) if isinstance(md, list) else md)
