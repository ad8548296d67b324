"""What a person marks `<private>` in a note stays in the file: never indexed, searched,
shown in a snippet or sent to an LLM (issue 33 item 4, for hand-written notes as for
captured transcripts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index.chunker import chunk_markdown
from memctl.secrets import strip_private
from memctl.vault import Vault
from tests.chat_server import ChatServer, chat_server, completion

__all__ = ["chat_server"]  # the fixture, imported to be found

ENV = {"MEMCTL_NOW": "2026-11-22T09:30:00"}
NOTE = (
    "# 2026-11-22\n\n"
    "- 09:00 deployed the booking site\n"
    "- 09:10 <private>door code 4471, Дана's health\n"
    "  and סוד המשפחה</private> met the landlord\n"
    "- 09:20 renewed the TLS certificate for zanzibar.example\n"
    "- 09:30 Mention <PRIVATE >unclosed: quokka-secret to the end\n"
)


def test_private_spans_keep_every_later_line_number() -> None:
    kept = strip_private(NOTE, keep_lines=True)
    assert kept.count("\n") == NOTE.count("\n")
    assert "4471" not in kept and "Дана" not in kept and "סוד" not in kept
    assert "quokka" not in kept  # an unclosed tag hides the rest
    assert kept.splitlines()[5] == NOTE.splitlines()[5]  # the TLS line, same number
    assert strip_private("a <private>x\ny</private> b") == "a [private] b"


def test_a_private_span_is_not_indexed_or_found(vault: Vault, runner: CliRunner) -> None:
    note = vault.root / "memory/daily/2026-11-22.md"
    note.write_text(NOTE, encoding="utf-8")
    chunks = chunk_markdown(NOTE, "memory/daily/2026-11-22.md")
    assert not any("4471" in c.text or "quokka" in c.text for c in chunks)
    args = ["--vault", str(vault.root)]
    assert runner.invoke(app, [*args, "index", "--no-embed"], env=ENV).exit_code == 0
    for word in ("4471", "landlord", "quokka-secret", "סוד"):
        out = runner.invoke(
            app, [*args, "search", word, "--mode", "lexical", "--json", "--no-log"], env=ENV
        )
        assert out.exit_code == 0, out.output
        shown = json.dumps(json.loads(out.stdout)["results"], ensure_ascii=False)
        assert "4471" not in shown and "quokka" not in shown and "סוד" not in shown
    out = runner.invoke(
        app, [*args, "search", "TLS certificate", "--mode", "lexical", "--json"], env=ENV
    )
    first = json.loads(out.stdout)["results"][0]
    assert first["path"] == "memory/daily/2026-11-22.md"
    line = NOTE.splitlines().index("- 09:20 renewed the TLS certificate for zanzibar.example") + 1
    assert first["line_start"] <= line <= first["line_end"]
    assert "zanzibar.example" in first["snippet"]
    state = b"".join(p.read_bytes() for p in (vault.root / ".memctl").rglob("*") if p.is_file())
    assert b"4471" not in state and "סוד".encode() not in state
    assert note.read_text(encoding="utf-8") == NOTE  # the file keeps what it holds


def test_no_private_span_reaches_the_llm(
    chat_server: ChatServer, vault_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`compact --summarize` through a real OpenAI-compatible server the test runs: the
    request the server receives holds no private text, the archive still does."""
    user = tmp_path / "user.toml"
    user.write_text(
        f'[llm]\nprovider = "openai"\nbase_url = "{chat_server.base_url}"\n', encoding="utf-8"
    )
    monkeypatch.setenv("MEMCTL_CONFIG", str(user))
    month = vault_dir / "memory/archive/daily"
    month.mkdir(parents=True)
    (month / "2026-09-01.md").write_text(NOTE.replace("2026-11-22", "2026-09-01"), "utf-8")
    chat_server.responder = lambda body: completion("- deployed; renewed a certificate")
    out = CliRunner().invoke(app, ["--vault", str(vault_dir), "compact", "--summarize"])
    assert out.exit_code == 0, out.output
    sent = json.dumps(chat_server.requests, ensure_ascii=False)
    assert chat_server.requests and "TLS certificate" in sent
    assert "4471" not in sent and "quokka" not in sent and "סוד" not in sent
    assert "4471" in (vault_dir / "memory/archive/2026-09.md").read_text(encoding="utf-8")
