"""The page's doors against a real `memctl ui`: cross-site posts refused, nothing outside
memory/ readable, a rebound Host refused, the bearer token beyond loopback."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest

from memctl.lifecycle.proposals import ProposalBook
from memctl.ui.guard import Guard
from memctl.vault import Vault
from tests.ui.conftest import UiServer, serving_ui


def form_token(ui: UiServer) -> str:
    with ui.client() as client:
        page = client.get("/review").text
    found = re.search(r'name="form_token" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def test_every_page_answers_with_its_security_headers(ui: UiServer) -> None:
    for path in ("/", "/review", "/search?q=backup", "/trends", "/file?path=memory/core.md"):
        with ui.client() as client:
            answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        assert "script-src" not in answer.headers["content-security-policy"]
        assert answer.headers["content-security-policy"].startswith("default-src 'none'")
        assert answer.headers["x-frame-options"] == "DENY"


def test_cross_site_posts_change_nothing(ui: UiServer, ui_vault: Vault) -> None:
    (pid,) = [p.id for p in ProposalBook(ui_vault).of_kind("promote")]
    before = (ui_vault.state_dir / "proposals.json").read_bytes()
    token = form_token(ui)
    post = ui.url + "/decide/reject"
    attempts = [
        ({"origin": "http://evil.example"}, token),  # another site, with a stolen token
        ({}, token),  # no Origin, no Referer
        ({"origin": "null"}, token),
        ({"origin": ui.url}, ""),  # our origin, but no page's token
        ({"origin": ui.url}, token[:-1] + ("0" if token[-1] != "0" else "1")),  # forged
    ]
    with ui.client() as client:
        for headers, given in attempts:
            answer = client.post(post, data={"id": pid, "form_token": given}, headers=headers)
            assert answer.status_code == 403, (headers, answer.text)
        assert (ui_vault.state_dir / "proposals.json").read_bytes() == before
        # The page's own post (its Origin, its token) is what works.
        answer = client.post(
            post, data={"id": pid, "form_token": token}, headers={"origin": ui.url}
        )
    assert answer.status_code == 200 and f"{pid} rejected" in answer.text


def test_no_path_outside_memory_is_readable(ui: UiServer, ui_vault: Vault, tmp_path: Path) -> None:
    secret = tmp_path / "outside.md"
    secret.write_text("TOP-SECRET outside the vault\n", encoding="utf-8")
    os.symlink(secret, ui_vault.root / "memory" / "linked.md")
    (ui_vault.root / "notes.md").write_text("TOP-SECRET at the root\n", encoding="utf-8")
    for rel in (
        "../outside.md",
        str(secret),
        "memory/../notes.md",
        "notes.md",
        "memory/linked.md",
        ".memctl/proposals.json",
        "memory/daily/../../.memctl/config.toml",
        "memory/core.md\x00.md",
    ):
        with ui.client() as client:
            answer = client.get("/file", params={"path": rel})
        assert answer.status_code == 400, rel
        assert "TOP-SECRET" not in answer.text and '"proposals"' not in answer.text
    with ui.client() as client:
        shown = client.get("/file", params={"path": "memory/core.md", "line": "3"})
    assert shown.status_code == 200 and 'id="L3" class="here"' in shown.text


def test_a_rebound_host_name_is_refused(ui: UiServer) -> None:
    port = ui.url.rsplit(":", 1)[1]
    with ui.client() as client:
        answer = client.get("/", headers={"host": f"attacker.example:{port}"})
        assert answer.status_code == 421
        assert client.get(f"http://localhost:{port}/").status_code == 200


def test_a_hostile_note_is_escaped_in_every_page(ui: UiServer) -> None:
    for path in ("/review", "/search?q=hostile+note", "/file?path=memory/daily/2026-11-21.md"):
        with ui.client() as client:
            text = client.get(path).text
        assert "&lt;script&gt;document.title=" in text, path
        assert "<script" not in text and "<img" not in text, path


def test_the_bearer_token_is_required_on_loopback_too(ui: UiServer) -> None:
    """Loopback is open to every local user: the page asks for the vault's token."""
    assert f"open {ui.url}/?token={ui.token}" in ui.log
    refused = httpx.get(ui.url + "/")
    assert refused.status_code == 401 and refused.headers["x-frame-options"] == "DENY"
    assert httpx.get(ui.url + "/?token=wrong").status_code == 401
    assert httpx.get(ui.url + "/", headers={"authorization": "Bearer wrong"}).status_code == 401
    with httpx.Client() as browser:
        answer = browser.get(f"{ui.url}/review?token={ui.token}")
        assert answer.status_code == 303 and answer.headers["location"] == "/review"
        cookie = answer.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        assert browser.get(ui.url + "/").status_code == 200  # the cookie from now on
    with ui.client() as client:
        assert client.get("/").status_code == 200


def test_beyond_loopback_the_host_is_not_checked_but_the_token_is(ui_vault: Vault) -> None:
    # 127.0.0.2 is a loopback address the page does not count as one.
    with serving_ui(ui_vault.root, "--host", "127.0.0.2") as ui:
        assert httpx.get(ui.url + "/").status_code == 401
        with ui.client() as client:
            assert client.get("/", headers={"host": "memory.example:1"}).status_code == 200


def test_form_tokens_are_signed_by_the_process_and_expire() -> None:
    guard = Guard(host="127.0.0.1", port=1, token="t")
    token = guard.form_token()
    assert guard.form_token_valid(token)
    assert not Guard(host="127.0.0.1", port=1, token="t").form_token_valid(token)
    stamp = int(token.split(".")[1])
    assert not guard.form_token_valid(token, now=stamp + 13 * 3600)
    for bad in ("", "x", "a.b.c", token + "x"):
        assert not guard.form_token_valid(bad)


@pytest.mark.parametrize(
    "headers, same",
    [
        ({"origin": "http://127.0.0.1:9"}, True),
        ({"origin": "http://localhost:9"}, True),
        ({"origin": "http://127.0.0.1:10"}, False),
        ({"referer": "http://127.0.0.1:9/review"}, True),
        ({"referer": "http://evil.example/"}, False),
        ({}, False),
    ],
)
def test_same_origin(headers: dict[str, str], same: bool) -> None:
    assert Guard(host="127.0.0.1", port=9, token="t").same_origin(headers) is same


def test_the_resident_process_serves_the_page_too(ui_vault: Vault) -> None:
    """`memctl serve --ui-port 0`: the dashboard shows the process serving it."""
    command = ("serve", "--no-embed", "--ui-port", "0")
    with serving_ui(ui_vault.root, command=command) as ui, ui.client() as client:
        assert "running, pid" in client.get("/").text
        assert client.get("/search?q=backups").status_code == 200


def test_a_port_in_use_is_one_line_and_exit_2(ui: UiServer, ui_vault: Vault) -> None:
    import subprocess

    from tests.processes import MEMCTL
    from tests.resident.conftest import env_for

    port = ui.url.rsplit(":", 1)[1]
    ran = subprocess.run(
        [MEMCTL, "--vault", str(ui_vault.root), "ui", "--port", port],
        capture_output=True,
        text=True,
        env=env_for(MEMCTL_MCP_TOKEN=ui.token),
        timeout=120,
    )
    assert ran.returncode == 2
    assert ran.stderr.splitlines()[-1] == (
        f"memctl: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
    assert "Traceback" not in ran.stderr
