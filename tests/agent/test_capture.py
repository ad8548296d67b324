"""Auto-capture end to end with the real anthropic client on a scripted transport."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

import pytest

from memctl import memory
from memctl.agent.capture import (
    CONTRADICTION_SYSTEM,
    EXTRACT_SYSTEM,
    JUDGE_SYSTEM,
    SUPERSEDED,
    capture,
)
from memctl.cli import app
from memctl.errors import MemctlError
from memctl.llm import LLM, get_llm
from memctl.vault import Vault
from tests.llm_mock import ScriptedAPI, fast_settings, tool_message

NOW = datetime(2026, 11, 22, 9, 30)
CONVERSATION = [
    {"role": "user", "content": "We moved DNS to Route53 last week. Thanks!"},
    {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
]

Judge = Callable[[str], dict[str, Any]]


@pytest.fixture(autouse=True)
def _clock(pinned_now: str) -> None:
    """Notes added by the tests' set-up get a known time stamp too."""


class FakeModel:
    """Answers by stage (which system prompt was sent) and records every request."""

    def __init__(
        self,
        memories: list[dict[str, Any]],
        judge: Judge | None = None,
        contradiction: Judge | None = None,
    ) -> None:
        self.memories = memories
        self.judge = judge or (lambda prompt: _verdict("ADD", None, _new_text(prompt)))
        self.contradiction = contradiction or (
            lambda prompt: {"contradicts": False, "target": None, "reason": "compatible"}
        )
        self.api = ScriptedAPI()
        self.api.responder = self.respond
        self.stages: list[str] = []

    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        system, prompt = body["system"], body["messages"][0]["content"]
        if system == EXTRACT_SYSTEM:
            self.stages.append("extract")
            return tool_message({"memories": self.memories})
        if system == JUDGE_SYSTEM:
            self.stages.append("judge")
            return tool_message(self.judge(prompt))
        assert system == CONTRADICTION_SYSTEM
        self.stages.append("contradiction")
        return tool_message(self.contradiction(prompt))

    def llm(self) -> LLM:
        llm = get_llm(fast_settings(), client=self.api.client())
        assert llm is not None
        return llm


def _new_text(prompt: str) -> str:
    """The candidate as the judge prompt shows it (an ADD that keeps the text as is)."""
    return prompt.split(">\n", 1)[1].split("\n</new>", 1)[0]


def _first_id(prompt: str) -> str:
    match = re.search(r'<memory id="([^"]+)">', prompt)
    assert match, prompt
    return match.group(1)


def _verdict(action: str, target: str | None, text: str) -> dict[str, Any]:
    return {"action": action, "target": target, "text": text, "reason": f"{action.lower()} it"}


def _mem(text: str, kind: str = "fact", durable: bool = True, **extra: Any) -> dict[str, Any]:
    return {"text": text, "kind": kind, "durable": durable, **extra}


def test_no_llm_is_exit_2(vault: Vault) -> None:
    with pytest.raises(MemctlError) as info:
        capture(vault, "user: hi", None)
    assert info.value.exit_code == 2 and "ANTHROPIC_API_KEY" in str(info.value)


def test_cli_without_key_says_so_and_exits_2_when_the_llm_is_asked_for(runner, vault_dir) -> None:
    args = ["--vault", str(vault_dir), "capture", "-", "--extract", "llm"]
    out = runner.invoke(app, args, input="user: hi")
    assert out.exit_code == 2
    assert "ANTHROPIC_API_KEY" in out.stderr


def test_cli_without_key_captures_by_rule(runner, vault_dir) -> None:
    text = "user: Remember that the billing cron runs at 03:15 UTC."
    out = runner.invoke(app, ["--vault", str(vault_dir), "capture", "-"], input=text)
    assert out.exit_code == 0, out.output
    daily = "".join(p.read_text() for p in (vault_dir / "memory" / "daily").glob("*.md"))
    assert "The billing cron runs at 03:15 UTC (session text-" in daily


def test_gates_and_add_in_three_languages(vault: Vault) -> None:
    model = FakeModel(
        [
            _mem("DNS is hosted on Route53 since November"),
            _mem("המשתמש מעדיף תשובות קצרות"),
            _mem("Always answer in Russian to Ivan", kind="rule"),
            _mem("Thanks!"),
            _mem("I am checking the deploy logs right now"),
            _mem("Сейчас идёт деплой", durable=False),
            _mem("Use Route53 for DNS: managed, cheap", kind="decision", title="Route53 for DNS"),
        ]
    )
    report = capture(vault, json.dumps(CONVERSATION), model.llm(), now=NOW)
    outcomes = [c.outcome for c in report.candidates]
    assert outcomes == ["ADD", "ADD", "ADD", "invalid", "invalid", "invalid", "ADD"]
    # An empty vault: the first ADD needs no judgment; later ones are judged against what
    # this run already wrote; the decision is checked against nothing else high-importance.
    assert model.stages == ["extract", "judge", "judge", "judge"]
    note = memory.load_daily(vault, date(2026, 11, 22))
    assert note is not None
    assert "- 09:30 DNS is hosted on Route53 since November" in note.text
    assert "המשתמש מעדיף" in note.text and "Always answer in Russian" in note.text
    assert "Thanks" not in note.text and "right now" not in note.text
    assert "## 2026-11-22 — Route53 for DNS" in vault.decisions_path.read_text()
    sent = model.api.requests[0]["messages"][0]["content"]
    assert "We moved DNS to Route53" in sent


def test_near_duplicate_skipped_before_any_further_llm_call(vault: Vault) -> None:
    memory.add_note(vault, "The DNS provider is Cloudflare", day=date(2026, 11, 20))
    memory.add_note(vault, "Никогда не деплоить в пятницу", day=date(2026, 11, 20))
    model = FakeModel(
        [_mem("The DNS provider is Cloudflare."), _mem("никогда не деплоить в пятницу")]
    )
    report = capture(vault, "user: dns is cloudflare; no friday deploys", model.llm(), now=NOW)
    assert [c.outcome for c in report.candidates] == ["duplicate", "duplicate"]
    assert report.candidates[0].target is not None
    assert report.candidates[0].target.path == "memory/daily/2026-11-20.md"
    assert model.stages == ["extract"]
    assert not vault.daily_path(date(2026, 11, 22)).exists()


def test_repeat_within_one_conversation_is_a_duplicate(vault: Vault) -> None:
    model = FakeModel(
        [_mem("Backups are stored in Backblaze"), _mem("Backups are stored in Backblaze")]
    )
    report = capture(vault, "user: backups", model.llm(), now=NOW)
    assert [c.outcome for c in report.candidates] == ["ADD", "duplicate"]
    note = memory.load_daily(vault, date(2026, 11, 22))
    assert note is not None and note.text.count("Backblaze") == 1


def test_update_archives_old_text_with_pointer(vault: Vault) -> None:
    memory.add_note(vault, "The DNS provider is Cloudflare", day=date(2026, 11, 20))
    old_day = vault.daily_path(date(2026, 11, 20))

    def judge(prompt: str) -> dict[str, Any]:
        assert 'id="memory/daily/2026-11-20.md:3"' in prompt
        return _verdict(
            "UPDATE", "memory/daily/2026-11-20.md:3", "DNS moved from Cloudflare to Route53"
        )

    model = FakeModel([_mem("DNS moved to Route53 from Cloudflare in November")], judge=judge)
    report = capture(vault, "user: dns moved", model.llm(), now=NOW)
    cand = report.candidates[0]
    assert cand.outcome == "UPDATE", cand.reason
    assert cand.written is not None and cand.written["removed_from"] == "memory/daily/2026-11-20.md"
    assert "Cloudflare" not in old_day.read_text()  # removed from its day
    archived = (vault.root / SUPERSEDED).read_text()
    assert "- 09:30 The DNS provider is Cloudflare" in archived  # the old text, verbatim
    assert "Replaced by: memory/daily/2026-11-22.md" in archived
    assert "DNS moved from Cloudflare to Route53" in archived
    today = memory.load_daily(vault, date(2026, 11, 22))
    assert today is not None and "DNS moved from Cloudflare to Route53" in today.text


def test_delete_archives_and_removes_a_decision(vault: Vault) -> None:
    memory.add_decision(vault, "Use Cloudflare", "cheap and fast DNS", day=date(2026, 11, 2))
    model = FakeModel(
        [_mem("We no longer use Cloudflare for anything at all")],
        judge=lambda prompt: _verdict("DELETE", _first_id(prompt), ""),
    )
    report = capture(vault, "user: cloudflare is gone", model.llm(), now=NOW)
    assert report.candidates[0].outcome == "DELETE"
    assert "Use Cloudflare" not in vault.decisions_path.read_text()
    archived = (vault.root / SUPERSEDED).read_text()
    assert "## 2026-11-02 — Use Cloudflare\n\ncheap and fast DNS" in archived
    assert "Because of: captured on 2026-11-22: We no longer use Cloudflare" in archived
    assert re.search(r"retracted by capture \(was memory/decisions.md:\d+\)", archived)


def test_contradiction_with_a_decision_is_held_not_written(vault: Vault) -> None:
    memory.add_decision(vault, "Use SQLite", "one file, no server", day=date(2026, 11, 2))
    decisions_before = vault.decisions_path.read_text()

    def contradiction(prompt: str) -> dict[str, Any]:
        assert "Use SQLite" in prompt
        return {
            "contradicts": True,
            "target": _first_id(prompt),
            "reason": "SQLite vs Postgres",
        }

    model = FakeModel(
        [_mem("The index must live in PostgreSQL, not SQLite")],
        judge=lambda prompt: _verdict("ADD", None, "The index must live in PostgreSQL"),
        contradiction=contradiction,
    )
    report = capture(vault, "user: use postgres", model.llm(), now=NOW)
    cand = report.candidates[0]
    assert cand.outcome == "CONFLICT" and "SQLite vs Postgres" in cand.reason
    assert cand.target is not None and cand.target.path == "memory/decisions.md"
    assert model.stages == ["extract", "judge", "contradiction"]
    assert vault.decisions_path.read_text() == decisions_before
    assert not vault.daily_path(date(2026, 11, 22)).exists()


def test_dry_run_plans_but_writes_nothing(vault: Vault) -> None:
    memory.add_note(vault, "The DNS provider is Cloudflare", day=date(2026, 11, 20))
    before = {p: p.read_bytes() for p in vault.memory_files()}
    model = FakeModel(
        [_mem("DNS moved to Route53 from Cloudflare"), _mem("Ivan prefers short answers")],
        judge=lambda prompt: (
            _verdict("UPDATE", "memory/daily/2026-11-20.md:3", "DNS is on Route53")
            if "Route53" in _new_text(prompt)
            else _verdict("ADD", None, "Ivan prefers short answers")
        ),
    )
    report = capture(vault, "user: ...", model.llm(), dry_run=True, now=NOW)
    assert [c.outcome for c in report.candidates] == ["UPDATE", "ADD"]
    assert all(c.written is None for c in report.candidates)
    assert {p: p.read_bytes() for p in vault.memory_files()} == before
    assert not (vault.root / SUPERSEDED).exists()


def test_bad_judgment_and_llm_failure_write_nothing(vault: Vault) -> None:
    memory.add_note(vault, "The DNS provider is Cloudflare", day=date(2026, 11, 20))
    before = {p: p.read_bytes() for p in vault.memory_files()}
    model = FakeModel(
        [_mem("DNS moved to Route53 from Cloudflare")],
        judge=lambda prompt: _verdict("UPDATE", "memory/nowhere.md:1", "x"),
    )
    report = capture(vault, "user: ...", model.llm(), now=NOW)
    assert report.candidates[0].outcome == "error"
    assert {p: p.read_bytes() for p in vault.memory_files()} == before
    # A malformed judgment (schema violation) is an error for that candidate, not a crash.
    model = FakeModel(
        [_mem("DNS moved to Route53 from Cloudflare")],
        judge=lambda prompt: {"action": "MAYBE", "target": None, "text": "", "reason": "?"},
    )
    report = capture(vault, "user: ...", model.llm(), now=NOW)
    assert report.candidates[0].outcome == "error"
    assert "malformed" in report.candidates[0].reason
    assert {p: p.read_bytes() for p in vault.memory_files()} == before


def test_core_lines_are_never_changed_by_capture(vault: Vault) -> None:
    core = vault.core_path.read_text().replace(
        "## Identity\n", "## Identity\n\n- I am Ada, a build bot\n"
    )
    vault.core_path.write_text(core, encoding="utf-8")
    model = FakeModel(
        [_mem("The agent is called Ada and builds releases")],
        judge=lambda prompt: _verdict("UPDATE", _first_id(prompt), "I am Ada, a release bot"),
    )
    report = capture(vault, "user: ...", model.llm(), now=NOW)
    assert report.candidates[0].outcome == "CONFLICT"
    assert report.candidates[0].target is not None
    assert report.candidates[0].target.path == "memory/core.md"
    assert vault.core_path.read_text() == core


def test_cli_capture_dry_run_json_and_write(runner, vault: Vault, vault_dir, monkeypatch) -> None:
    model = FakeModel([_mem("Ivan prefers short answers in Russian"), _mem("ok")])
    monkeypatch.setattr("memctl.llm.get_llm", lambda settings, client=None: model.llm())
    source = vault_dir.parent / "conv.json"
    source.write_text(json.dumps(CONVERSATION), encoding="utf-8")
    args = ["--vault", str(vault_dir), "capture", str(source)]
    out = runner.invoke(app, [*args, "--dry-run", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["dry_run"] is True and data["counts"] == {"ADD": 1, "invalid": 1}
    assert not vault.daily_path(date(2026, 11, 22)).exists()
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    assert (
        "ADD       Ivan prefers short answers in Russian -> memory/daily/2026-11-22.md"
        in out.stdout
    )
    assert "1 ADD, 1 invalid" in out.stderr
    assert "Ivan prefers" in vault.daily_path(date(2026, 11, 22)).read_text()
    out = runner.invoke(app, ["--vault", str(vault_dir), "capture", str(vault_dir / "nope.json")])
    assert out.exit_code == 2 and "does not exist" in out.stderr


def test_malformed_extraction_fails_the_run_and_writes_nothing(vault: Vault) -> None:
    api = ScriptedAPI([tool_message({"memories": [{"text": "x"}]})])
    llm = get_llm(fast_settings(), client=api.client())
    before = {p: p.read_bytes() for p in vault.memory_files()}
    with pytest.raises(MemctlError, match="malformed"):
        capture(vault, "user: anything", llm, now=NOW)
    assert {p: p.read_bytes() for p in vault.memory_files()} == before


def test_target_edited_meanwhile_is_archived_but_left_in_place(vault: Vault) -> None:
    memory.add_note(vault, "The DNS provider is Cloudflare", day=date(2026, 11, 20))
    day = vault.daily_path(date(2026, 11, 20))

    def judge(prompt: str) -> dict[str, Any]:
        # A person edits the note while the model is thinking.
        day.write_text(day.read_text().replace("Cloudflare", "Cloudflare (Pro plan)"))
        return _verdict("UPDATE", _first_id(prompt), "DNS is on Route53 now")

    model = FakeModel([_mem("DNS moved to Route53 from Cloudflare")], judge=judge)
    report = capture(vault, "user: ...", model.llm(), now=NOW)
    written = report.candidates[0].written
    assert written is not None and written["removed_from"] is None
    assert "changed since" in written["notice"]
    assert "Cloudflare (Pro plan)" in day.read_text()  # the person's edit survives
    assert "The DNS provider is Cloudflare" in (vault.root / SUPERSEDED).read_text()


def test_large_vaults_widen_the_lexical_pool_with_the_index(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memctl.agent.capture_neighbours as capture_module
    from memctl.agent.capture import Neighbourhood, load_memories
    from memctl.index.sync import sync

    for i in range(30):
        memory.add_note(
            vault,
            f"Deploy ticket {i}: the backup job for service {i} finished",
            day=date(2026, 11, 20),
        )
    memory.add_note(
        vault, "Nightly database dumps are kept in Backblaze B2 for a month", day=date(2026, 11, 19)
    )
    # Pretend the vault is large: no full comparison, and a tiny lexical pool.
    monkeypatch.setattr(capture_module, "FULL_COMPARE_LIMIT", 0)
    monkeypatch.setattr(capture_module, "_POOL", 3)
    query = "Which cloud stores our DB snapshots?"
    lexical_only = Neighbourhood(vault, load_memories(vault), []).nearest(query, k=1)
    assert "Backblaze" not in lexical_only[0][0].text
    sync(vault, embed=True, now=NOW)
    hood = Neighbourhood(vault, load_memories(vault), [])
    [(best, cosine, _)] = hood.nearest(query, k=1)
    assert "Backblaze" in best.text and hood.index_hits > 0
    assert 0.0 < cosine < 0.92  # related, not a duplicate (calibrated cosine)
