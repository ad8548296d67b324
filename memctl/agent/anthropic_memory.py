"""`VaultMemoryTool`: the vault as the Anthropic SDK's memory tool (`memory_20250818`).

    from anthropic import Anthropic
    from memctl.agent.anthropic_memory import VaultMemoryTool
    from memctl.vault import find_vault

    memory = VaultMemoryTool(find_vault())
    runner = Anthropic().beta.messages.tool_runner(
        model="claude-sonnet-4-5", max_tokens=2048, tools=[memory],
        messages=[{"role": "user", "content": "Remember that I prefer short answers"}],
    )

A subclass of the SDK's `BetaAbstractMemoryTool` (anthropic >= 2.x ships it in
anthropic.lib.tools); every command runs memctl.agent.memory_tool, so the vault's
confinement, lock, atomic writes, core.md cap and archive hold as for MCP. An error is
raised as the SDK's `ToolError`, which the tool runner returns with `is_error`.
"""

from __future__ import annotations

from typing import Any

from memctl.agent.memory_tool import MemoryToolError, memory_command
from memctl.errors import UsageError
from memctl.vault import Vault

try:
    from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
except ImportError:  # an anthropic older than the memory tool
    raise UsageError(
        "the installed anthropic package has no memory tool class "
        "(anthropic.lib.tools.BetaAbstractMemoryTool): upgrade it (`pip install -U anthropic`)"
    ) from None


class VaultMemoryTool(BetaAbstractMemoryTool):
    """Anthropic's memory tool with `/memories` backed by the vault's `memory/` folder."""

    def __init__(self, vault: Vault, **options: Any) -> None:
        super().__init__(**options)
        self.vault = vault

    def _run(self, command: Any) -> str:
        try:
            return memory_command(self.vault, command.to_dict())
        except MemoryToolError as exc:
            raise ToolError(str(exc)) from None

    def view(self, command: Any) -> str:
        return self._run(command)

    def create(self, command: Any) -> str:
        return self._run(command)

    def str_replace(self, command: Any) -> str:
        return self._run(command)

    def insert(self, command: Any) -> str:
        return self._run(command)

    def delete(self, command: Any) -> str:
        return self._run(command)

    def rename(self, command: Any) -> str:
        return self._run(command)

    def clear_all_memory(self) -> str:
        # The vault is a person's notes under git: an agent never wipes it.
        raise ToolError("clearing all memory is not offered: the vault is kept in git")
