"""The repository explains itself: every "DESIGN §N" a tracked file cites is
a section of docs/DESIGN.md, and the paths CONTRIBUTING.md and the design
name exist."""
import re
import subprocess

import pytest

from schedlab import paths

DESIGN = paths.ROOT / "docs" / "DESIGN.md"
CONTRIBUTING = paths.ROOT / "CONTRIBUTING.md"

#: "DESIGN §10", "DESIGN §1, §3", "DESIGN §§4-5" -> the numbers cited
CITATION = re.compile(r"DESIGN\s+§§?\s*(\d+(?:\s*(?:,|-|–|and)\s*§?\s*\d+)*)")


def cited_sections(text: str) -> set[int]:
    found = set()
    for group in CITATION.findall(text):
        for a, b in re.findall(r"(\d+)(?:\s*[-–]\s*§?\s*(\d+))?", group):
            found |= set(range(int(a), int(b or a) + 1))
    return found


def design_sections(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"^## (\d+)\. ", text, flags=re.M)}


def tracked_files() -> list:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=paths.ROOT, capture_output=True, check=True, timeout=60)
        names = [n for n in out.stdout.decode().split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    return [paths.ROOT / n for n in names]


def test_every_design_citation_resolves():
    have = design_sections(DESIGN.read_text())
    assert have >= set(range(1, 11)), sorted(have)
    bad = []
    for f in tracked_files():
        if f.suffix not in (".py", ".md", ".typ", ".ipynb", ".toml", ".yaml", ".c", ".h", ".txt", "") or not f.is_file():
            continue
        try:
            text = f.read_text()
        except UnicodeDecodeError:
            continue
        bad += [f"{f.relative_to(paths.ROOT)}: DESIGN §{n}" for n in sorted(cited_sections(text) - have)]
    assert not bad, "citations of a design section docs/DESIGN.md does not have:\n" + "\n".join(bad)


def test_the_citation_check_sees_a_missing_section():
    text = "see DESIGN §10 and DESIGN §1, §3; also (DESIGN §§4-5) and " + "DESIGN §" + "12"   # not a citation here
    assert cited_sections(text) == {1, 3, 4, 5, 10, 12}
    assert cited_sections(text) - design_sections("## 1. a\n## 3. b\n## 4. c\n## 5. d\n## 10. e\n") == {12}


#: what a build writes (git-ignored): named by the guides, absent from a fresh clone
GENERATED = ("paper/generated", "paper/numbers.json", "paper/paper.pdf", "results/")


@pytest.mark.parametrize("doc", [CONTRIBUTING, DESIGN], ids=lambda p: p.name)
def test_the_paths_the_guides_name_exist(doc):
    """A path in backquotes that starts with a folder of the repository
    (lib/, csrc/, tests/, data/, params/, notebooks/, paper/, docs/, tools/)
    exists, unless it holds a placeholder (<name>, NN, {quick,full})."""
    text = doc.read_text()
    named = re.findall(r"`((?:lib|csrc|tests|data|params|notebooks|paper|docs|tools|bench|shipped)/[^`\s]*)`", text)
    assert named
    missing = [p for p in named if not re.search(r"[<{*]|NN|hourly", p) and not p.startswith(GENERATED)
               and not (paths.ROOT / p.split(" ")[0].rstrip(".,:;)")).exists()]
    assert not missing, f"{doc.name} names paths that do not exist: {missing}"


def test_shipped_full_holds_the_benchmark_files_the_readme_cites():
    """shipped/full/ keeps the benchmark JSONs the README cites, no more (older
    ones live in git history), and each cited one is there and in the manifest."""
    import json

    readme = (paths.ROOT / "README.md").read_text()
    cited = set(re.findall(r"bench-profile-[A-Za-z0-9_.-]+\.json", readme))
    full = paths.ROOT / "shipped" / "full"
    present = {p.name for p in full.glob("bench-*.json")}
    assert cited and present == cited, (sorted(present - cited), sorted(cited - present))
    assert set(json.loads((full / "MANIFEST.json").read_text())["files"]) == cited


def test_the_study_writing_api_examples_run(tmp_path):
    """Every python block of CONTRIBUTING's "The study-writing API" runs as
    written (issue 51, item 5): what a cell returns, the Schedule and trace
    attributes, store.Var's fields."""
    import sys
    import textwrap

    text = CONTRIBUTING.read_text()
    section = text[text.index("## The study-writing API\n"):]
    section = section[:section.index("\n## ", 5)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 2
    for code in blocks:
        r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
