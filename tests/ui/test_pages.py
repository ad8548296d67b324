"""What each page shows, read over HTTP from a real `memctl ui` (one server per module)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.conftest import UiServer, build, serving_ui


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root: Path = tmp_path_factory.mktemp("pages") / "vault"
    build(root)
    with serving_ui(root) as server:
        yield server


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_dashboard_shows_each_tier_and_the_last_run(shared: UiServer) -> None:
    with shared.client() as client:
        page = text_of(client.get("/").text)
    assert "18 / 100 lines" in page
    assert "3 daily files" in page and "4 decisions (4 dated)" in page
    assert "chunk(s) waiting for embeddings" in page
    assert "clean · 3 move(s)" in page  # the last of the recorded runs
    assert "1 promotion(s)" in page


def test_the_review_queue_shows_evidence_and_pairs(shared: UiServer) -> None:
    with shared.client() as client:
        html = client.get("/review").text
    page = text_of(html)
    assert "6 reference(s) in 7 days" in page
    assert page.count("search · миграции пятница") == 6  # each reference, with its query
    # Both superseded decisions side by side with what superseded them.
    assert html.count('class="pair superseded"') == 2
    assert 'class="pair near-duplicate"' in html
    assert "Заменено: решили хранить в git" in page
    assert "## 2026-09-20 — Use SQLite for the index" in page
    assert "daily note of 2026-09-01, untouched for 30+ days" in page


def test_search_shows_its_filters_errors_in_one_line(shared: UiServer) -> None:
    with shared.client() as client:
        bad_date = client.get("/search", params={"q": "backup", "since": "yesterday"}).text
        bad_path = client.get("/search", params={"q": "backup", "path": "../etc"}).text
        query = "vault every night maintenance window"
        everywhere = client.get("/search", params={"q": query}).text
        filtered = client.get("/search", params={"q": query, "tier": "hot"}).text
        bad_as_of = client.get("/search", params={"q": "backup", "as_of": "nonsense-rev"}).text
    assert "--since &#39;yesterday&#39; is not a date (YYYY-MM-DD)" in bad_date
    assert "--path takes a vault-relative path prefix" in bad_path
    assert 'class="error"' in bad_as_of and "Traceback" not in bad_as_of
    assert "warm" in re.findall(r"· (hot|warm|cold)/\w+ ·", text_of(everywhere))
    tiers = re.findall(r"· (hot|warm|cold)/\w+ ·", text_of(filtered))
    assert tiers and set(tiers) == {"hot"}


def test_the_trends_draw_every_chart(shared: UiServer) -> None:
    with shared.client() as client:
        html = client.get("/trends").text
    for title in (
        "HOT lines",
        "WARM files",
        "COLD",
        "Promotions and demotions per week",
        "References per day",
    ):
        assert f"<figcaption>{title}</figcaption>" in html
    assert html.count("<svg") == 5


def test_over_the_cap_the_dashboard_names_the_lines_lint_would_cut(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    vault = build(root)
    core = (root / "memory/core.md").read_text(encoding="utf-8")
    extra = "".join(f"- Факт номер {n}: שורה {n}\n" for n in range(90))
    (root / "memory/core.md").write_text(core + extra, encoding="utf-8")
    lines = len((core + extra).splitlines())
    assert lines > vault.settings.hot.cap_lines
    with serving_ui(root) as ui, ui.client() as client:
        html = client.get("/").text
    page = text_of(html)
    assert f"{lines} / 100 lines" in page and 'class="big over"' in html
    cut = re.findall(r'<ul class="cut">(.*?)</ul>', html, re.S)
    assert cut and cut[0].count("<li>") == lines - 100
    assert "memory/core.md:" in cut[0]


def test_search_as_of_a_commit(tmp_path: Path) -> None:
    """The page's `as of` is the CLI's --as-of: the vault as committed then."""
    import subprocess

    root = tmp_path / "vault"
    build(root)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "memory"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "before"], cwd=root, check=True)
    with (root / "memory/daily/2026-11-22.md").open("a", encoding="utf-8") as f:
        f.write("- 09:00 Переехали на сервер zanzibar-17\n")
    query = {"q": "zanzibar-17 сервер"}
    with serving_ui(root) as ui, ui.client() as client:
        now = text_of(client.get("/search", params=query).text)
        then_html = client.get("/search", params={**query, "as_of": "HEAD"}).text
    then = text_of(then_html)
    assert "memory/daily/2026-11-22.md:" in now
    assert "Переехали на сервер zanzibar" in now
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert f"as of HEAD (commit {head[:12]} )" in then
    assert "Переехали на сервер zanzibar" not in then


def test_prune_from_the_page_deletes_the_chunk_and_says_so(tmp_path: Path) -> None:
    from datetime import timedelta

    from memctl.index.sync import sync
    from memctl.lifecycle.workflows import run_prune
    from tests.lifecycle.helpers import write
    from tests.ui.conftest import NOW

    root = tmp_path / "vault"
    vault = build(root)
    old = "# 2025-12\n\n## 2025-12-01\n\n- 09:00 Старый сервер выключен навсегда\n"
    write(vault, "memory/archive/2025-12.md", old, NOW - timedelta(days=300))
    sync(vault, embed=False, now=NOW)
    (pid,) = [p.id for p in run_prune(vault, now=NOW).proposals]
    with serving_ui(root) as ui, ui.client() as client:
        html = client.get("/review").text
        assert f'id="{pid}"' in html and "Старый сервер выключен навсегда" in html
        token = re.search(r'name="form_token" value="([^"]+)"', html)
        assert token
        done = client.post(
            "/decide/prune",
            data={"id": pid, "form_token": token.group(1)},
            headers={"origin": ui.url},
        )
    assert done.status_code == 200
    assert "deleted from memory/archive/2025-12.md" in text_of(done.text)
    left = root / "memory/archive/2025-12.md"  # its one chunk gone: the file with it
    assert not left.exists() or "Старый сервер" not in left.read_text(encoding="utf-8")


def test_archive_a_core_line_from_the_page(tmp_path: Path) -> None:
    """A core.md line unreferenced for the HOT window: `memctl demote --hot ID` from the page."""
    from datetime import timedelta

    from memctl.lifecycle.workflows import run_demote
    from tests.ui.conftest import NOW

    root = tmp_path / "vault"
    vault = build(root, context_loads=False)  # loaded every turn, a line is never stale
    run_demote(vault, now=NOW - timedelta(days=40))  # memctl first sees core.md's lines
    proposals = {p.text.strip(): p.id for p in run_demote(vault, now=NOW).hot}
    pid = proposals["- The index lives in .memctl/."]
    with serving_ui(root) as ui, ui.client() as client:
        html = client.get("/review").text
        assert f'id="{pid}"' in html
        token = re.search(r'name="form_token" value="([^"]+)"', html)
        assert token
        done = client.post(
            "/decide/archive",
            data={"id": pid, "form_token": token.group(1)},
            headers={"origin": ui.url},
        )
    assert done.status_code == 200, done.text
    assert "memory/core.md -&gt; memory/archive/core.md" in text_of(done.text)
    assert "The index lives in .memctl/." not in (root / "memory/core.md").read_text("utf-8")
    archived = "".join(p.read_text("utf-8") for p in (root / "memory/archive").rglob("*.md"))
    assert "The index lives in .memctl/." in archived
