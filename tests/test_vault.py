"""Vault discovery, tiers, atomic writes and the edit-safe update."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memctl.config_files import load_settings
from memctl.errors import UsageError, VaultNotFound
from memctl.vault import (
    Vault,
    atomic_write_text,
    find_vault,
    read_text,
    source_of,
    tier_of,
    update_file,
)


def test_template_has_core_sections_and_ignores_the_index(vault_dir: Path) -> None:
    core = (vault_dir / "memory/core.md").read_text()
    for section in ("## Identity", "## Iron rules", "## Active project", "## Open blockers"):
        assert section in core
    assert "100 lines" in core
    assert ".memctl/" in (vault_dir / ".gitignore").read_text()
    assert (vault_dir / "memory/daily").is_dir() and (vault_dir / "memory/archive").is_dir()


def test_discovery_order(vault_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "memory").mkdir()
    (other / "memory/core.md").write_text("# core\n")
    nested = vault_dir / "memory/daily"
    # --vault beats the environment, which beats walking up from cwd.
    assert find_vault(other, env={"MEMCTL_VAULT": str(vault_dir)}, cwd=nested).root == other
    assert find_vault(None, env={"MEMCTL_VAULT": str(other)}, cwd=nested).root == other
    assert find_vault(None, env={}, cwd=nested).root == vault_dir


def test_no_vault_names_what_was_tried(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFound) as caught:
        find_vault(None, env={}, cwd=tmp_path)
    message = str(caught.value)
    assert "--vault" in message and "MEMCTL_VAULT" in message and str(tmp_path) in message
    assert caught.value.exit_code == 2
    with pytest.raises(VaultNotFound, match="--vault"):
        find_vault(tmp_path, env={}, cwd=tmp_path)


@pytest.mark.parametrize(
    ("path", "tier", "source"),
    [
        ("memory/core.md", "hot", "core"),
        ("memory/decisions.md", "warm", "decision"),
        ("memory/daily/2026-11-22.md", "warm", "daily"),
        ("memory/archive/2026-10.md", "cold", "archive"),
        ("memory/archive/daily/2026-10-01.md", "cold", "archive"),
        ("notes/other.md", None, None),
        ("memory/core.txt", None, None),
    ],
)
def test_tiers(path: str, tier: str | None, source: str | None) -> None:
    assert tier_of(path) == tier
    assert source_of(path) == source


def test_atomic_write_replaces_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "a.md"
    target.write_text("old")
    os.chmod(target, 0o640)
    atomic_write_text(target, "новый текст\n")
    assert target.read_text(encoding="utf-8") == "новый текст\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]  # no temp file left behind


def test_atomic_write_failure_keeps_old_content(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "a.md"
    target.write_text("precious")

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]


def test_update_file_reapplies_change_over_a_concurrent_edit(tmp_path: Path) -> None:
    target = tmp_path / "core.md"
    target.write_text("line 1\n")
    calls = []

    def change(before: str) -> str:
        calls.append(before)
        if len(calls) == 1:
            # A person saves the file in an editor between our read and our write.
            target.write_text("line 1\nedited by hand\n")
        return before + "added by memctl\n"

    update_file(target, change)
    assert target.read_text() == "line 1\nedited by hand\nadded by memctl\n"
    assert len(calls) == 2


def test_read_text_rejects_non_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"ok \xff\xfe")
    with pytest.raises(UsageError, match="not valid UTF-8"):
        read_text(bad)
    with pytest.raises(UsageError, match="does not exist"):
        read_text(tmp_path / "missing.md")


def test_resolve_refuses_paths_outside(vault: Vault, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="outside the vault"):
        vault.resolve("../../etc/passwd")
    with pytest.raises(UsageError, match="outside the vault"):
        vault.rel(tmp_path / "elsewhere.md")
    assert vault.resolve("memory/core.md") == vault.root / "memory/core.md"


def test_settings_file_overrides_and_validates(vault_dir: Path) -> None:
    (vault_dir / ".memctl.toml").write_text("[hot]\ncap_lines = 50\n[search]\nweight_fts = 1\n")
    settings = load_settings(vault_dir)
    assert settings.hot.cap_lines == 50
    assert settings.search.weight_fts == 1.0
    assert settings.warm.daily_days == 2
    (vault_dir / ".memctl.toml").write_text("[hot]\ncap_line = 50\n")
    with pytest.raises(UsageError, match=r"unknown setting \[hot\] cap_line"):
        load_settings(vault_dir)
    (vault_dir / ".memctl.toml").write_text("[hot\n")
    with pytest.raises(UsageError, match="invalid TOML"):
        load_settings(vault_dir)


def test_memory_files_skip_hidden_and_linked_folders_in_walk_order(vault: Vault) -> None:
    memory = vault.memory_dir
    for rel in [
        "archive/2026-01.md",
        "archive/b/deep.md",
        "archive/a/x.md",
        "archive/.hidden/secret.md",
        "archive/.draft.md",
        "archive/notes.txt",
        "daily/2026-11-20.md",
    ]:
        (memory / rel).parent.mkdir(parents=True, exist_ok=True)
        (memory / rel).write_text("- x\n", encoding="utf-8")
    outside = vault.root.parent / "elsewhere"
    outside.mkdir()
    (outside / "linked.md").write_text("- y\n", encoding="utf-8")
    (memory / "archive" / "link").symlink_to(outside, target_is_directory=True)

    # The reference: os.walk top-down, folders and files sorted, links to folders not followed.
    expected = []
    for dirpath, dirnames, filenames in os.walk(memory):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        expected += [
            Path(dirpath) / n for n in sorted(filenames) if n.endswith(".md") and n[0] != "."
        ]
    listed = list(vault.memory_entries())
    assert [Path(path) for _, path, _ in listed] == expected == list(vault.memory_files())
    rels = [rel for rel, _, _ in listed]
    assert "memory/archive/a/x.md" in rels and "memory/archive/b/deep.md" in rels
    assert not any("hidden" in r or "draft" in r or "linked" in r for r in rels)
