"""Anthropic's memory tool over the vault: every command, confinement, the cap, the
archive, the index; through the SDK's own tool runner and through `memctl mcp`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from anthropic.lib.tools import ToolError
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from typer.testing import CliRunner

from memctl.agent.anthropic_memory import VaultMemoryTool
from memctl.agent.memory_tool import MemoryToolError, memory_command
from memctl.agent.tools import call_tool
from memctl.cli import app
from memctl.index.backend import open_store
from memctl.vault import Vault, read_text
from tests.llm_mock import ScriptedAPI
from tests.mcp_helpers import mcp_env
from tests.mcp_helpers import payload as _payload
from tests.processes import MEMCTL

TEXTS = ("the deploy needs DNS first", "הפריסה דורשת DNS", "деплою нужен DNS")


def run(vault: Vault, **command: Any) -> str:
    return memory_command(vault, command)


def refused(vault: Vault, **command: Any) -> str:
    with pytest.raises(MemoryToolError) as info:
        memory_command(vault, command)
    return str(info.value)


def indexed(vault: Vault) -> set[str]:
    with open_store(vault) as store:
        return set(store.file_states())


def test_create_view_and_index_in_three_languages(vault: Vault) -> None:
    for day, text in zip(("2026-11-20", "2026-11-21", "2026-11-22"), TEXTS, strict=True):
        path = f"/memories/daily/{day}.md"
        assert run(vault, command="create", path=path, file_text=f"# {day}\n\n- {text}") == (
            f"File created successfully at: {path}"
        )
        assert read_text(vault.root / f"memory/daily/{day}.md") == f"# {day}\n\n- {text}\n"
    assert {f"memory/daily/2026-11-2{d}.md" for d in "012"} <= indexed(vault)
    shown = run(vault, command="view", path="/memories/daily/2026-11-21.md")
    assert shown.splitlines() == [
        "Here's the content of /memories/daily/2026-11-21.md with line numbers:",
        "     1\t# 2026-11-21",
        "     2\t",
        "     3\t- הפריסה דורשת DNS",
    ]
    ranged = run(vault, command="view", path="/memories/daily/2026-11-22.md", view_range=[3, -1])
    assert ranged.splitlines()[1:] == ["     3\t- деплою нужен DNS"]
    (vault.root / "memory/archive/projects").mkdir(parents=True)
    (vault.root / "memory/archive/projects/dns.md").write_text("# DNS\n", encoding="utf-8")
    (vault.root / "memory/daily/.hidden.md").write_text("x\n", encoding="utf-8")
    (vault.root / "memory/notes.txt").write_text("not a tier file\n", encoding="utf-8")
    listing = run(vault, command="view", path="/memories").splitlines()
    assert listing[0].startswith("Here're the files and directories up to 2 levels deep")
    names = [line.split("\t")[1] for line in listing[1:]]
    assert "/memories/core.md" in names and "/memories/daily/2026-11-21.md" in names
    assert "/memories/archive/" in names and "/memories/archive/projects/" in names
    assert "/memories/archive/projects/dns.md" not in names  # three levels down
    assert not any(".hidden" in n or "notes.txt" in n for n in names)


def test_create_refuses_existing_and_non_memory_files(vault: Vault) -> None:
    assert "already exists" in refused(
        vault, command="create", path="/memories/core.md", file_text="x"
    )
    message = refused(vault, command="create", path="/memories/notes.txt", file_text="x")
    assert "not a memory file" in message and "/memories/archive/" in message
    assert not (vault.root / "memory/notes.txt").exists()
    assert "File created" in run(
        vault, command="create", path="/memories/archive/topics/dns.md", file_text="# DNS\n"
    )


def test_str_replace_must_be_unique(vault: Vault) -> None:
    path = vault.root / "memory/daily/2026-11-22.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# 2026-11-22\n\n- DNS: Route53\n- Кэш: Redis\n- DNS: Route53\n", "utf-8")
    before = path.read_bytes()
    message = refused(
        vault,
        command="str_replace",
        path="/memories/daily/2026-11-22.md",
        old_str="DNS: Route53",
        new_str="DNS: Cloudflare",
    )
    assert "Multiple occurrences" in message and "lines: 3, 5" in message
    assert "did not appear verbatim" in refused(
        vault,
        command="str_replace",
        path="/memories/daily/2026-11-22.md",
        old_str="שלום",
        new_str="x",
    )
    assert path.read_bytes() == before
    out = run(
        vault,
        command="str_replace",
        path="/memories/daily/2026-11-22.md",
        old_str="Кэш: Redis",
        new_str="Кэш: Valkey — מטמון",
    )
    assert "     4\t- Кэш: Valkey — מטמון" in out.splitlines()
    assert read_text(path).count("Valkey") == 1


def test_insert_at_top_end_and_out_of_range(vault: Vault) -> None:
    run(vault, command="create", path="/memories/daily/2026-11-22.md", file_text="# d\n- a")
    run(
        vault,
        command="insert",
        path="/memories/daily/2026-11-22.md",
        insert_line=2,
        insert_text="- ב\n- в",
    )
    run(
        vault,
        command="insert",
        path="/memories/daily/2026-11-22.md",
        insert_line=0,
        insert_text="<!-- top -->",
    )
    assert read_text(vault.root / "memory/daily/2026-11-22.md") == (
        "<!-- top -->\n# d\n- a\n- ב\n- в\n"
    )
    assert "within the range [0, 5]" in refused(
        vault,
        command="insert",
        path="/memories/daily/2026-11-22.md",
        insert_line=9,
        insert_text="x",
    )


def test_core_cap_holds_with_update_core_memorys_message(vault: Vault) -> None:
    (vault.root / ".memctl.toml").write_text("[hot]\ncap_lines = 13\n", encoding="utf-8")
    vault = Vault(vault.root)
    core = vault.core_path.read_text(encoding="utf-8")
    assert len(core.splitlines()) == 12
    run(vault, command="insert", path="/memories/core.md", insert_line=6, insert_text="- Я Дана")
    before = vault.core_path.read_bytes()
    message = refused(
        vault, command="insert", path="/memories/core.md", insert_line=8, insert_text="- שמי דנה"
    )
    assert message.startswith("refused: core.md would have 14 lines, over its cap of 13 by 1")
    assert message.endswith(
        "archive stale core lines first (`memctl demote`), or save this with remember instead"
    )
    assert vault.core_path.read_bytes() == before
    # A replacement that does not grow core.md passes even at the cap.
    run(
        vault,
        command="str_replace",
        path="/memories/core.md",
        old_str="- Я Дана",
        new_str="- I am Dana",
    )
    assert "- I am Dana" in read_text(vault.core_path)


def test_delete_moves_a_daily_note_to_the_archive(vault: Vault) -> None:
    text = "# 2026-11-20\n\n- деплой прошёл\n"
    run(vault, command="create", path="/memories/daily/2026-11-20.md", file_text=text)
    out = run(vault, command="delete", path="/memories/daily/2026-11-20.md")
    assert "moved to /memories/archive/daily/2026-11-20.md" in out
    assert not (vault.root / "memory/daily/2026-11-20.md").exists()
    assert read_text(vault.root / "memory/archive/daily/2026-11-20.md") == text
    files = indexed(vault)
    assert "memory/archive/daily/2026-11-20.md" in files
    assert "memory/daily/2026-11-20.md" not in files
    # A note for a day already archived joins the archived note: both texts kept.
    run(vault, command="create", path="/memories/daily/2026-11-20.md", file_text="- שוב\n")
    run(vault, command="delete", path="/memories/daily/2026-11-20.md")
    archived = read_text(vault.root / "memory/archive/daily/2026-11-20.md")
    assert "деплой прошёл" in archived and "שוב" in archived
    assert "does not exist" in refused(
        vault, command="delete", path="/memories/daily/2026-11-20.md"
    )
    assert "cannot be deleted" in refused(vault, command="delete", path="/memories/core.md")
    assert "already in the archive" in refused(
        vault, command="delete", path="/memories/archive/daily/2026-11-20.md"
    )
    assert "is a folder" in refused(vault, command="delete", path="/memories/daily")
    assert "is a folder" in refused(vault, command="delete", path="/memories")


def test_rename(vault: Vault) -> None:
    run(vault, command="create", path="/memories/daily/2026-11-21.md", file_text="- DNS\n")
    run(vault, command="create", path="/memories/archive/dns.md", file_text="- old\n")
    assert "already exists" in refused(
        vault,
        command="rename",
        old_path="/memories/daily/2026-11-21.md",
        new_path="/memories/archive/dns.md",
    )
    out = run(
        vault,
        command="rename",
        old_path="/memories/daily/2026-11-21.md",
        new_path="/memories/archive/topics/днс.md",
    )
    assert (
        out
        == "Successfully renamed /memories/daily/2026-11-21.md to /memories/archive/topics/днс.md"
    )
    assert read_text(vault.root / "memory/archive/topics/днс.md") == "- DNS\n"
    assert "memory/archive/topics/днс.md" in indexed(vault)
    assert "keeps its name" in refused(
        vault, command="rename", old_path="/memories/core.md", new_path="/memories/archive/c.md"
    )


@pytest.mark.parametrize(
    "path",
    [
        "/memories/../x.md",
        "/memories/daily/../../.memctl/index.db",
        "/memories/./core.md",
        "/etc/passwd",
        "memories/core.md",
        "/memoriesX/core.md",
        "/memories/core.md\x00.txt",
        "/memories\\daily\\x.md",
        "/memories/.memctl/state.db",
        "",
    ],
)
def test_paths_are_confined(vault: Vault, tmp_path: Path, path: str) -> None:
    before = {p: p.read_bytes() for p in vault.root.rglob("*") if p.is_file()}
    for command in (
        {"command": "view", "path": path},
        {"command": "create", "path": path, "file_text": "x"},
        {"command": "str_replace", "path": path, "old_str": "#", "new_str": "x"},
        {"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"},
        {"command": "delete", "path": path},
        {"command": "rename", "old_path": "/memories/core.md", "new_path": path},
        {"command": "rename", "old_path": path, "new_path": "/memories/archive/x.md"},
    ):
        with pytest.raises(MemoryToolError):
            memory_command(vault, command)
    assert {
        p: p.read_bytes() for p in vault.root.rglob("*") if p.is_file() and ".memctl" not in p.parts
    } == {p: b for p, b in before.items() if ".memctl" not in p.parts}


def test_links_are_neither_read_nor_written_through(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("# secret\n", encoding="utf-8")
    daily = vault.root / "memory/daily"
    daily.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, daily / "2026-11-22.md")
    os.symlink(tmp_path, vault.root / "memory/archive/out")
    os.symlink(vault.core_path, daily / "2026-11-21.md")  # inside, but a link
    message = refused(vault, command="view", path="/memories/daily/2026-11-22.md")
    assert "link that leaves the vault" in message  # the one reader rule (Vault.read_memory)
    assert "secret" not in message
    refused(
        vault,
        command="str_replace",
        path="/memories/daily/2026-11-22.md",
        old_str="secret",
        new_str="x",
    )
    refused(vault, command="create", path="/memories/archive/out/new.md", file_text="x")
    refused(vault, command="view", path="/memories/archive/out")
    message = refused(
        vault,
        command="insert",
        path="/memories/daily/2026-11-21.md",
        insert_line=0,
        insert_text="x",
    )
    assert "symbolic link" in message
    assert outside.read_text(encoding="utf-8") == "# secret\n"
    assert not (tmp_path / "new.md").exists()
    listing = run(vault, command="view", path="/memories")
    assert "secret" not in listing and "/memories/archive/out/" not in listing


def test_a_secret_is_refused_when_the_vault_says_so(vault: Vault) -> None:
    (vault.root / ".memctl.toml").write_text('[security]\nsecrets = "refuse"\n', encoding="utf-8")
    vault = Vault(vault.root)
    key = "sk-ant-api03-" + "Q" * 90
    message = refused(
        vault, command="create", path="/memories/archive/k.md", file_text=f"key {key}"
    )
    assert "not saved" in message and key not in message
    assert not (vault.root / "memory/archive/k.md").exists()
    # A secret already written (by hand) can still be removed: old_str is not screened.
    (vault.root / "memory/archive/k.md").write_text(f"- key {key}\n", encoding="utf-8")
    run(
        vault,
        command="str_replace",
        path="/memories/archive/k.md",
        old_str=key,
        new_str="(in the vault)",
    )
    assert key not in read_text(vault.root / "memory/archive/k.md")


def test_a_missing_folder_does_not_exist(vault: Vault) -> None:
    assert "does not exist" in refused(vault, command="view", path="/memories/daily/sub")
    assert "does not exist" in refused(vault, command="view", path="/memories/archive/x")


# --- the SDK's class and its tool runner ------------------------------------------------


def _tool_use(command: dict[str, Any], n: int) -> dict[str, Any]:
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "memory", "input": command}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def test_sdk_tool_runner_writes_through_the_vault(vault: Vault) -> None:
    tool = VaultMemoryTool(vault)
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    api = ScriptedAPI(
        [
            _tool_use({"command": "view", "path": "/memories"}, 1),
            _tool_use(
                {
                    "command": "create",
                    "path": "/memories/daily/2026-11-22.md",
                    "file_text": "- Дана любит краткость\n",
                },
                2,
            ),
            _tool_use({"command": "view", "path": "/memories/../etc"}, 3),
            {
                "id": "msg_4",
                "type": "message",
                "role": "assistant",
                "model": "claude-haiku-4-5",
                "content": [{"type": "text", "text": "Saved."}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        ]
    )
    runner = api.client().beta.messages.tool_runner(
        model="claude-haiku-4-5",
        max_tokens=512,
        tools=[tool],
        messages=[{"role": "user", "content": "Запомни: я люблю краткость"}],
    )
    final = runner.until_done()
    assert final.content[0].text == "Saved."
    assert read_text(vault.root / "memory/daily/2026-11-22.md") == "- Дана любит краткость\n"
    assert api.requests[0]["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    by_id = {
        block["tool_use_id"]: block
        for sent in api.requests
        for message in sent["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    }
    results = [by_id[f"toolu_{n}"] for n in (1, 2, 3)]
    assert "core.md" in json.dumps(results[0], ensure_ascii=False)
    assert "File created successfully" in json.dumps(results[1])
    assert results[2].get("is_error") is True
    with pytest.raises(ToolError):
        tool.call({"command": "delete", "path": "/memories/core.md"})
    with pytest.raises(ToolError):
        tool.clear_all_memory()


# --- MCP and the CLI --------------------------------------------------------------------


async def _mcp_calls(vault_dir: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=MEMCTL, args=["--vault", str(vault_dir), "mcp"], env=mcp_env()
    )
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = {t.name: t for t in (await session.list_tools()).tools}
        out["destructive"] = listed["memory"].annotations.destructive_hint
        out["create"] = _payload(
            await session.call_tool(
                "memory",
                {
                    "command": "create",
                    "path": "/memories/daily/2026-11-22.md",
                    "file_text": "- שלום\n",
                },
            )
        )
        out["view"] = _payload(
            await session.call_tool(
                "memory", {"command": "view", "path": "/memories/daily/2026-11-22.md"}
            )
        )
        out["escape"] = _payload(
            await session.call_tool(
                "memory", {"command": "view", "path": "/memories/../../etc/passwd"}
            )
        )
        out["bad"] = _payload(await session.call_tool("memory", {"command": "format"}))
    return out


def test_mcp_memory_tool(vault_dir: Path) -> None:
    out = anyio.run(_mcp_calls, vault_dir)
    assert out["destructive"] is True
    assert out["create"]["ok"] and out["create"]["result"].startswith("File created successfully")
    assert "     1\t- שלום" in out["view"]["result"]
    assert out["escape"]["ok"] is False and "no '..'" in out["escape"]["error"]["message"]
    assert out["bad"]["error"]["type"] == "invalid_arguments"
    assert read_text(vault_dir / "memory/daily/2026-11-22.md") == "- שלום\n"


def test_tools_call_memory_from_the_cli(runner: CliRunner, vault_dir: Path) -> None:
    args = json.dumps({"command": "view", "path": "/memories/core.md", "view_range": [1, 1]})
    out = runner.invoke(
        app, ["--vault", str(vault_dir), "tools", "--call", "memory", "--args", args]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["result"].endswith("     1\t# Core memory")
    result = call_tool(
        Vault(vault_dir), "memory", {"command": "delete", "path": "/memories/core.md"}
    )
    assert result["ok"] is False and result["error"]["type"] == "refused"
