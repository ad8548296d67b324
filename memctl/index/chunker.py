"""Markdown -> chunks with exact line ranges (pure: no I/O).

How a file is cut:
1. Front matter (a leading `---` ... `---` block) is metadata: it sets date, tags and
   importance and is not itself a chunk.
2. The rest is read as blocks: a heading line, a fenced code block (``` or ~~~, up to its
   closing fence or the end of the file), a list item (with its indented continuation and
   nested items), or a paragraph. Blank lines separate blocks.
3. Within one section (same heading path) neighbouring blocks are merged while the chunk
   stays within `max_tokens`; the heading line joins the first chunk of its section, and
   a heading followed directly by a deeper one joins that one's chunk.
4. A block larger than `max_tokens` is cut at line boundaries (a line is never split, so
   line ranges stay exact). A code fence is never cut: an oversized fence is one chunk.
   The embedder reads only its first ~256 model tokens; words and trigram search still
   see all of it.

Every non-blank line outside the front matter lands in exactly one chunk, and a chunk's
text is its own lines, exactly as in the file.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from memctl.index.note_meta import HEADING, extract_tags, note_date, parse_front_matter
from memctl.notes import DECISION_HEADING, parse_iso_date
from memctl.secrets import strip_private
from memctl.tokens import estimate_tokens
from memctl.vault import source_of, tier_of

MAX_TOKENS = 200

DEFAULT_IMPORTANCE = {"core": 1.0, "decision": 0.7, "daily": 0.5, "archive": 0.4}

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")


@dataclass(frozen=True)
class Chunk:
    line_start: int  # 1-based
    line_end: int  # inclusive
    heading: str  # " > "-joined heading path; "" before the first heading
    text: str
    hash: str
    tier: str
    source: str
    date: str | None  # ISO
    tags: tuple[str, ...]
    importance: float

    def columns(self) -> tuple[int, int, str, str, str, str, str, str | None, str, float]:
        """The chunk as every index backend stores it: line_start .. importance, tags as JSON."""
        tags = json.dumps(list(self.tags), ensure_ascii=False)
        return (
            *(self.line_start, self.line_end, self.heading, self.text, self.hash),
            *(self.tier, self.source, self.date, tags, self.importance),
        )


@dataclass
class _Block:
    start: int  # 0-based, inclusive
    end: int  # 0-based, inclusive
    kind: Literal["heading", "fence", "item", "para"]
    tokens: int


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _blocks(lines: list[str], start: int) -> list[_Block]:
    blocks: list[_Block] = []
    i, n = start, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE_OPEN.match(line)
        if fence:
            marker = fence.group(1)
            j = i + 1
            while j < n and not re.match(rf"^ {{0,3}}{marker[0]}{{{len(marker)},}}\s*$", lines[j]):
                j += 1
            end = min(j, n - 1)
            while end > i and not lines[end].strip():
                end -= 1  # an unclosed fence ends at its last non-blank line
            blocks.append(_Block(i, end, "fence", _cost(lines, i, end)))
            i = end + 1
            continue
        if HEADING.match(line):
            blocks.append(_Block(i, i, "heading", estimate_tokens(line)))
            i += 1
            continue
        item = _LIST_ITEM.match(line)
        if item:
            end = _item_end(lines, i, len(item.group(1)))
            blocks.append(_Block(i, end, "item", _cost(lines, i, end)))
            i = end + 1
            continue
        j = i
        while (
            j + 1 < n
            and lines[j + 1].strip()
            and not HEADING.match(lines[j + 1])
            and not _FENCE_OPEN.match(lines[j + 1])
            and not _LIST_ITEM.match(lines[j + 1])
        ):
            j += 1
        blocks.append(_Block(i, j, "para", _cost(lines, i, j)))
        i = j + 1
    return blocks


def block_spans(lines: list[str]) -> list[tuple[int, int, str]]:
    """The blocks of `lines` as (first line, last line, kind), 0-based: what the chunker
    merges, read again by memctl.index.units to cut a chunk into its facts."""
    return [(b.start, b.end, b.kind) for b in _blocks(lines, 0)]


def _item_end(lines: list[str], start: int, indent: int) -> int:
    """Last line of a list item: lines indented deeper (even after a blank) or lazy continuations."""
    end, j, n = start, start + 1, len(lines)
    while j < n:
        line = lines[j]
        if not line.strip():
            k = j
            while k < n and not lines[k].strip():
                k += 1
            if k < n and _indent(lines[k]) > indent and not _FENCE_OPEN.match(lines[k]):
                j = k
                continue
            break
        if HEADING.match(line) or _FENCE_OPEN.match(line):
            break
        if _indent(line) <= indent and _LIST_ITEM.match(line):
            break
        end = j
        j += 1
    return end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _cost(lines: list[str], start: int, end: int) -> int:
    return sum(estimate_tokens(lines[k]) for k in range(start, end + 1))


def _split_oversized(lines: list[str], block: _Block, max_tokens: int) -> list[_Block]:
    if block.tokens <= max_tokens or block.kind == "fence" or block.start == block.end:
        return [block]
    pieces: list[_Block] = []
    start, used = block.start, 0
    for k in range(block.start, block.end + 1):
        cost = estimate_tokens(lines[k])
        if k > start and used + cost > max_tokens:
            pieces.append(_Block(start, k - 1, block.kind, used))
            start, used = k, 0
        used += cost
    pieces.append(_Block(start, block.end, block.kind, used))
    trimmed = (_trim(lines, piece) for piece in pieces)
    return [piece for piece in trimmed if piece is not None]


def _fit_after_heading(
    lines: list[str], pieces: list[_Block], room: int, max_tokens: int
) -> list[_Block]:
    """Cut the first piece so its first lines fit in `room` (at least one line is kept)."""
    first = pieces[0]
    if first.tokens <= room or first.kind == "fence" or first.start == first.end:
        return pieces
    end, used = first.start, estimate_tokens(lines[first.start])
    while end < first.end and used + estimate_tokens(lines[end + 1]) <= room:
        end += 1
        used += estimate_tokens(lines[end])
    head = _trim(lines, _Block(first.start, end, first.kind, used))
    rest = _Block(end + 1, first.end, first.kind, _cost(lines, end + 1, first.end))
    tail = _split_oversized(lines, rest, max_tokens) if rest.start <= rest.end else []
    trimmed = [p for p in (_trim(lines, t) for t in tail) if p is not None]
    return [p for p in (head, *trimmed) if p is not None] + pieces[1:]


def _trim(lines: list[str], block: _Block) -> _Block | None:
    start, end = block.start, block.end
    while start <= end and not lines[start].strip():
        start += 1
    while end >= start and not lines[end].strip():
        end -= 1
    if start > end:
        return None
    return _Block(start, end, block.kind, block.tokens)


def chunk_markdown(
    text: str, rel_path: str, *, max_tokens: int = MAX_TOKENS, fallback_date: date | None = None
) -> list[Chunk]:
    """Cut one vault file into chunks. Files outside the memory tiers give no chunks.

    `fallback_date` dates a daily or archive note that names no date of its own (the
    caller's choice: its last git commit, else its file time); see `note_meta.note_date`.
    """
    source = source_of(rel_path)
    tier = tier_of(rel_path)
    if source is None or tier is None:
        return []
    # What a person marked <private> in a note is never indexed (so never searched, shown in
    # a snippet or handed to an agent by search); the file keeps it.
    lines = strip_private(text, keep_lines=True).splitlines()
    front = parse_front_matter(lines)
    file_date = note_date(lines, rel_path, source, front, fallback_date)
    importance = front.importance if front.importance is not None else DEFAULT_IMPORTANCE[source]

    cut = _Cut(lines, max_tokens, tier, source, file_date, front.tags, importance)
    for block in _blocks(lines, front.end_line):
        if block.kind == "heading":
            cut.heading(block)
        else:
            cut.body(block)
    cut.flush()
    return cut.chunks


class _Cut:
    """One file's cutting: the chunks made so far, the blocks gathered for the next, and
    the headings and the date they sit under."""

    def __init__(
        self,
        lines: list[str],
        max_tokens: int,
        tier: str,
        source: str,
        file_date: str | None,
        tags: tuple[str, ...],
        importance: float,
    ) -> None:
        self.lines = lines
        self.max_tokens = max_tokens
        self.tier, self.source, self.tags, self.importance = tier, source, tags, importance
        self.chunks: list[Chunk] = []
        self.path_stack: list[tuple[int, str]] = []  # (level, title) of the headings above
        self.section_date = file_date  # the file's; in a decision file its dated section's
        self.group: list[_Block] = []
        self.group_tokens = 0

    def flush(self) -> None:
        """The blocks gathered so far as one chunk."""
        if self.group:
            self.chunks.append(
                _make_chunk(
                    self.lines,
                    self.group,
                    self.path_stack,
                    self.tier,
                    self.source,
                    self.section_date,
                    self.tags,
                    self.importance,
                )
            )
        self.group, self.group_tokens = [], 0

    def heading(self, block: _Block) -> None:
        """A heading starts a chunk, unless it only nests under a heading alone so far."""
        match = HEADING.match(self.lines[block.start])
        assert match is not None
        level, title = len(match.group(1)), (match.group(2) or "").strip()
        # A heading with nothing under it but a deeper heading (`# Title` then
        # `## Part`) joins that part's chunk instead of standing alone.
        nests = bool(self.group) and all(b.kind == "heading" for b in self.group)
        nests = nests and bool(self.path_stack) and level > self.path_stack[-1][0]
        if not nests:
            self.flush()
        while self.path_stack and self.path_stack[-1][0] >= level:
            self.path_stack.pop()
        self.path_stack.append((level, title))
        if self.source == "decision" and level <= 2:
            dated = DECISION_HEADING.match(self.lines[block.start]) if level == 2 else None
            day = parse_iso_date(dated.group(1)) if dated else None
            self.section_date = day.isoformat() if day else None
        if nests:
            self.group.append(block)
            self.group_tokens += block.tokens
        else:
            self.group, self.group_tokens = [block], block.tokens

    def body(self, block: _Block) -> None:
        """A block of text joins the chunk while it fits `max_tokens` (an oversized one cut
        first)."""
        max_tokens, group = self.max_tokens, self.group
        pieces = _split_oversized(self.lines, block, max_tokens)
        if group and all(b.kind == "heading" for b in group):
            # The heading joins its first block; when both together pass the budget,
            # the block's first lines go with the heading and the rest follows.
            pieces = _fit_after_heading(
                self.lines, pieces, max_tokens - self.group_tokens, max_tokens
            )
        for piece in pieces:
            only_heading = len(self.group) == 1 and self.group[0].kind == "heading"
            if self.group and self.group_tokens + piece.tokens > max_tokens and not only_heading:
                self.flush()
            self.group.append(piece)
            self.group_tokens += piece.tokens


def _make_chunk(
    lines: list[str],
    group: list[_Block],
    path_stack: list[tuple[int, str]],
    tier: str,
    source: str,
    day: str | None,
    file_tags: tuple[str, ...],
    importance: float,
) -> Chunk:
    start, end = group[0].start, group[-1].end
    text = "\n".join(lines[start : end + 1])
    prose = "\n".join("\n".join(lines[b.start : b.end + 1]) for b in group if b.kind != "fence")
    tags = tuple(dict.fromkeys((*file_tags, *extract_tags(prose))))
    return Chunk(
        line_start=start + 1,
        line_end=end + 1,
        heading=" > ".join(title for _, title in path_stack if title),
        text=text,
        hash=content_hash(text),
        tier=tier,
        source=source,
        date=day,
        tags=tags,
        importance=importance,
    )
