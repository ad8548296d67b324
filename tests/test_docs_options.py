"""The README's and docs/*.md's command tables name exactly the options `--help` shows.

- README: the command tables (rows starting `` `memctl CMD ...` ``), all rows of a command
  together, name every option of CMD and no other.
- docs/*.md: a section headed `` `memctl CMD` `` mentions every option of CMD; its option
  tables name only options of CMD.
- Everywhere: a command line written in code (`memctl CMD --opt`, in a fenced block or inline)
  uses only options CMD has.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main

from memctl.cli import app
from memctl.cli.app import load_commands

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-z])(?![\w-])")
GLOBAL = {"--vault": True, "--version": False, "--help": False}  # option: takes a value
HEADING = re.compile(r"^(#+)\s")
COMMAND_HEADING = re.compile(r"^#+ `memctl ([a-z][a-z -]*)`\s*$")


def _commands() -> dict[str, Any]:
    load_commands()
    group = typer.main.get_command(app)
    found: dict[str, Any] = {}

    def walk(command: Any, path: str) -> None:
        if hasattr(command, "commands"):  # a group (Typer vendors its own click)
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}".strip())
        else:
            found[path] = command

    walk(group, "")
    return found


COMMANDS = _commands()
GROUPS = {name.split()[0] for name in COMMANDS if " " in name}


def options_of(command: Any) -> set[str]:
    names: set[str] = set()
    for param in command.params:
        if param.param_type_name == "option" and not getattr(param, "hidden", False):
            names.update(param.opts)
            names.update(param.secondary_opts)
    names.discard("--help")
    return names


@dataclass
class Use:
    """Options written after `memctl CMD` somewhere in the documentation."""

    command: str
    options: list[str]
    where: str


def _command_of(words: list[str]) -> tuple[str | None, list[str]]:
    """The command named by the words after `memctl` (global options skipped), and the rest."""
    n = 0
    while n < len(words) and words[n] in GLOBAL:
        n += 2 if GLOBAL[words[n]] else 1
    if n >= len(words) or words[n] not in {c.split()[0] for c in COMMANDS}:
        return None, []
    name, rest = words[n], words[n + 1 :]
    if name in GROUPS and rest and f"{name} {rest[0]}" in COMMANDS:
        name, rest = f"{name} {rest[0]}", rest[1:]
    return name, rest


def _shell_tail_removed(line: str) -> str:
    # A pipe to another program, a redirection or a comment ends the memctl command; an
    # alternative inside a synopsis (`[-k 5 | --budget N]`) does not.
    line = re.split(r"\s#\s|\s>\s|\s&&\s|;\s|\s&(\s|$)", line)[0]
    return re.split(r"\s\|\s+(?!-)", line)[0]


def uses_in(text: str, where: str) -> Iterator[Use]:
    """Every `memctl CMD ...` written as code: fenced lines (with their indented `[...]`
    continuation lines) and inline code spans."""
    lines = text.splitlines()
    fenced = False
    current: Use | None = None
    for number, line in enumerate(lines, start=1):
        if line.startswith("```"):
            fenced = not fenced
            current = None
            continue
        if fenced:
            stripped = line.strip().removeprefix("$ ")
            if current is not None and stripped.startswith("["):
                current.options += OPTION.findall(_shell_tail_removed(stripped))
                continue
            current = None
            if stripped.startswith("memctl "):
                words = _shell_tail_removed(stripped).split()[1:]
                name, rest = _command_of(words)
                if name is not None:
                    current = Use(name, OPTION.findall(" ".join(rest)), f"{where}:{number}")
                    yield current
            continue
        for span in re.findall(r"`(memctl [^`]+)`", line):
            words = _shell_tail_removed(span.replace("\\|", "|")).split()[1:]
            name, rest = _command_of(words)
            if name is not None:
                yield Use(name, OPTION.findall(" ".join(rest)), f"{where}:{number}")


def _all_uses() -> list[Use]:
    found: list[Use] = []
    for path in DOCS:
        found += list(uses_in(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()))
    return found


def test_the_documentation_is_read() -> None:
    # The checks below see every command of the README's tables, or they could never fail.
    readme = _readme_table_options()
    assert set(readme) == set(COMMANDS)
    assert "--budget" in readme["search"]
    assert len(_command_sections()) >= 10


def test_commands_are_read_from_synopses_examples_and_inline_code() -> None:
    text = (
        "```\n"
        "memctl search QUERY [-k 5 | --budget N] [--nope]\n"
        "                    [--also-wrong]\n"
        "$ memctl --vault ~/v maintain --commit | tee log  # --not-this\n"
        "```\n"
        "Run `memctl index --ful`, then `memctl db status --json`; `memctl 0.1.0` is no command.\n"
    )
    found = [(use.command, use.options) for use in uses_in(text, "x.md")]
    assert found == [
        ("search", ["-k", "--budget", "--nope", "--also-wrong"]),
        ("maintain", ["--commit"]),
        ("index", ["--ful"]),
        ("db status", ["--json"]),
    ]


def test_commands_written_in_the_docs_use_only_options_they_have() -> None:
    wrong = [
        f"{use.where}: memctl {use.command} has no {option}"
        for use in _all_uses()
        for option in use.options
        if option not in options_of(COMMANDS[use.command]) and option not in GLOBAL
    ]
    assert wrong == []


def _readme_table_options() -> dict[str, set[str]]:
    tables: dict[str, set[str]] = {}
    for number, line in enumerate((ROOT / "README.md").read_text().splitlines(), start=1):
        match = re.match(r"\|\s*`(memctl [^`]+)`\s*\|", line)
        if not match:
            continue
        uses = list(uses_in(f"`{match.group(1)}`", f"README.md:{number}"))
        for use in uses:
            tables.setdefault(use.command, set()).update(use.options)
    return tables


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_readme_command_tables_name_every_option(name: str) -> None:
    documented = _readme_table_options().get(name)
    assert documented is not None, f"the README's command tables have no row for memctl {name}"
    assert sorted(options_of(COMMANDS[name]) - documented) == [], "undocumented in README"
    assert sorted(documented - options_of(COMMANDS[name])) == [], "documented but absent"


@dataclass
class Section:
    command: str
    where: str
    text: str


def _command_sections() -> list[Section]:
    """Each part of docs/*.md under a heading `memctl CMD`, to the next heading as high."""
    found: list[Section] = []
    for path in DOCS[1:]:
        lines = path.read_text(encoding="utf-8").splitlines()
        fenced = False
        headings: list[tuple[int, int]] = []  # (line index, level)
        for index, line in enumerate(lines):
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and (match := HEADING.match(line)):
                headings.append((index, len(match.group(1))))
        for position, (index, level) in enumerate(headings):
            match = COMMAND_HEADING.match(lines[index])
            if not match or match.group(1) not in COMMANDS:
                continue
            end = next((i for i, lv in headings[position + 1 :] if lv <= level), len(lines))
            text = lines[index:end]
            # What the enclosing sections say before their first subsection holds for all
            # of them ("All take `--json`").
            above = level
            for at, (start, lv) in reversed(list(enumerate(headings[:position]))):
                if lv < above:
                    above = lv
                    text += lines[start : headings[at + 1][0]]
            where = f"{path.relative_to(ROOT).as_posix()}:{index + 1}"
            found.append(Section(match.group(1), where, "\n".join(text)))
    return found


@pytest.mark.parametrize("section", _command_sections(), ids=lambda s: s.where)
def test_a_command_section_in_the_docs_names_every_option(section: Section) -> None:
    mentioned = set(OPTION.findall(section.text))
    missing = options_of(COMMANDS[section.command]) - mentioned
    assert sorted(missing) == [], f"{section.where}: memctl {section.command}"
    # Its option tables (rows starting with an option in code) name only its options.
    table_options = {
        option
        for row in re.findall(r"^\|\s*`(-[^|]*)\|", section.text, flags=re.MULTILINE)
        for option in OPTION.findall(row)
    }
    absent = table_options - options_of(COMMANDS[section.command]) - set(GLOBAL)
    assert sorted(absent) == [], f"{section.where}: memctl {section.command}"
