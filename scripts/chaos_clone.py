"""scripts/chaos's hostile-clone rounds (issue 32): a vault that arrives by `git clone`.

Each round builds an origin repository with one kind of planted entry committed (past
the template's .gitignore: `git add -f .memctl`), clones it into a folder of checkouts
beside other repositories, and runs what a person and an agent would: search (now and
`--as-of`), status, context, show, index, add, the tools (`tools --call`) and the MCP
server over HTTP (driven with the planted token, then properly). Counted:

- outside files touched: every file outside the clone (siblings, the origin, the
  `outside/` folder the links name) compared byte for byte before and after; a command
  whose output shows an outside file's text counts too;
- environment bytes sent: bytes received by the attacker's listeners (a unix socket and
  a TCP port a planted `serve.sock` link or `serve.json` points to) in a message that
  holds the canary variable every command runs with;
- hangs: a command still running after HANG_SECONDS (then killed);
- hostile requests served: the MCP server answering the planted token, or the second
  local user (where one can be made: root with useradd) without the token.

The attacker's listeners run as the second user when there is one, else as this user.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HANG_SECONDS = 60.0
CANARY_ENV = "MEMCTL_CHAOS_CANARY"
OUTSIDE_TEXT = "OUTSIDE-CANARY-3b7e"
PEER = "memctl-peer"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "chaos",
    "GIT_AUTHOR_EMAIL": "chaos@example.com",
    "GIT_COMMITTER_NAME": "chaos",
    "GIT_COMMITTER_EMAIL": "chaos@example.com",
}

# The attacker's listener: accepts, reads what a client sends (never answers), records it.
SINK = r"""
import os, socket, sys, threading, time
folder = sys.argv[1]
log = open(os.path.join(folder, "received.log"), "ab", buffering=0)
def serve(listener):
    while True:
        conn, _ = listener.accept()
        def read(conn=conn):
            conn.settimeout(5)
            data = b""
            try:
                while len(data) < 1 << 20:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            log.write(len(data).to_bytes(8, "big") + data)
            time.sleep(600)  # never answer: a client must not wait forever
        threading.Thread(target=read, daemon=True).start()
unix = socket.socket(socket.AF_UNIX)
unix.bind(os.path.join(folder, "attacker.sock"))
os.chmod(os.path.join(folder, "attacker.sock"), 0o777)
unix.listen(16)
tcp = socket.socket()
tcp.bind(("127.0.0.1", 0))
tcp.listen(16)
open(os.path.join(folder, "port"), "w").write(str(tcp.getsockname()[1]))
threading.Thread(target=serve, args=(unix,), daemon=True).start()
serve(tcp)
"""


@dataclass
class Counts:
    rounds: int = 0
    outside: int = 0
    internal: int = 0
    env_sent: int = 0
    hangs: int = 0
    served: int = 0


def peer_ids() -> tuple[int, int] | None:
    """The second local user (made once), or None where it cannot be."""
    if not hasattr(os, "getuid") or os.getuid() != 0 or shutil.which("setpriv") is None:
        return None
    try:
        entry = pwd.getpwnam(PEER)
    except KeyError:
        if shutil.which("useradd") is None:
            return None
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PEER],
            capture_output=True,
            check=False,
        )
        try:
            entry = pwd.getpwnam(PEER)
        except KeyError:
            return None
    return entry.pw_uid, entry.pw_gid


def as_peer(argv: list[str], ids: tuple[int, int] | None) -> list[str]:
    if ids is None:
        return argv
    return ["setpriv", f"--reuid={ids[0]}", f"--regid={ids[1]}", "--clear-groups", *argv]


class Attacker:
    """The listeners a planted serve.sock / serve.json points to."""

    def __init__(self, folder: Path, ids: tuple[int, int] | None) -> None:
        self.folder = folder
        folder.mkdir(parents=True)
        folder.parent.chmod(0o755)
        if ids is not None:
            os.chown(folder, *ids)
        folder.chmod(0o755)
        self.proc = subprocess.Popen(
            as_peer([sys.executable, "-I", "-c", SINK, str(folder)], ids),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while not (folder / "port").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)
        self.port = int((folder / "port").read_text() or 0)
        self.socket = folder / "attacker.sock"
        self.seen = 0  # bytes of received.log already counted

    def received(self) -> list[bytes]:
        """What the listeners got since the last call (the log is the sink's open file:
        never removed, read on from where the last call stopped)."""
        path = self.folder / "received.log"
        data = path.read_bytes() if path.exists() else b""
        data, self.seen = data[self.seen :], len(data)
        out = []
        while len(data) >= 8:
            n = int.from_bytes(data[:8], "big")
            out.append(data[8 : 8 + n])
            data = data[8 + n :]
        return out

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait()


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True, check=True
    )


def tree_of(folder: Path, skip: Path) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for top, dirs, files in os.walk(folder):
        here = Path(top)
        if here == skip or skip in here.parents:
            dirs[:] = []
            continue
        for name in [*files, *dirs]:
            path = here / name
            if path == skip:
                continue
            key = str(path.relative_to(folder))
            if path.is_symlink():
                found[key] = b"-> " + os.fsencode(os.readlink(path))
            elif path.is_file():
                try:
                    found[key] = path.read_bytes()
                except OSError:
                    found[key] = b"(unreadable)"
    return found


Plant = Callable[[Path, "Lab"], None]


@dataclass
class Lab:
    work: Path
    memctl: str
    env: dict[str, str]
    attacker: Attacker
    ids: tuple[int, int] | None

    @property
    def outside(self) -> Path:
        return self.work / "outside"


def _link(root: Path, rel: str, target: str | Path) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    os.symlink(target, path)


PLANTED_TOKEN = "planted-" + "t" * 40


def _as_of_up(r: Path, lab: Lab) -> None:
    _link(r, ".memctl/as-of", "../..")


def _as_of_absolute(r: Path, lab: Lab) -> None:
    _link(r, ".memctl/as-of", lab.work / "checkouts")


def _as_of_memory(r: Path, lab: Lab) -> None:
    _link(r, ".memctl/as-of", "../memory")


def _locks(r: Path, lab: Lab) -> None:
    for name in ("vault", "index", "embed", "serve", "as-of-0123456789abcdef"):
        _link(r, f".memctl/{name}.lock", lab.outside / "canary.txt")


def _databases(r: Path, lab: Lab) -> None:
    _link(r, ".memctl/index.db", lab.outside / "canary.db")
    _link(r, ".memctl/state.db", lab.outside / "canary-state.db")


def _token(r: Path, lab: Lab) -> None:
    (r / ".memctl").mkdir(exist_ok=True)
    (r / ".memctl" / "http.token").write_text(PLANTED_TOKEN + "\n")


def _token_link(r: Path, lab: Lab) -> None:
    _link(r, ".memctl/http.token", lab.outside / "canary.txt")


def _state_link(r: Path, lab: Lab) -> None:
    _link(r, ".memctl", lab.outside / "state")


def _memory_link(r: Path, lab: Lab) -> None:
    _link(r, "memory", lab.outside / "memory")


def _note_links(r: Path, lab: Lab) -> None:
    _link(r, "memory/daily/2026-11-19.md", lab.outside / "secret.md")
    _link(r, "memory/archive/old.md", "../../../../outside/secret.md")
    _link(r, "memory/archive/folder", lab.outside / "memory")
    _link(r, "memory/daily/2026-11-18.md", "/etc/hostname")


def _socket_link(r: Path, lab: Lab) -> None:
    _link(r, ".memctl/serve.sock", lab.attacker.socket)


PLANTS: dict[str, Plant] = {
    "as-of -> ../..": _as_of_up,
    "as-of -> absolute": _as_of_absolute,
    "as-of -> ../memory": _as_of_memory,
    "locks -> outside file": _locks,
    "index.db, state.db -> outside": _databases,
    "http.token committed": _token,
    "http.token -> outside file": _token_link,
    ".memctl -> outside": _state_link,
    "memory -> outside": _memory_link,
    "notes -> outside": _note_links,
}


def _serve_json(root: Path, lab: Lab) -> None:
    from memctl import __version__

    (root / ".memctl").mkdir(exist_ok=True)
    info = {
        "pid": lab.attacker.proc.pid,
        "memctl": __version__,
        "transport": "tcp",
        "port": lab.attacker.port,
        "token": "x",
    }
    (root / ".memctl" / "serve.json").write_text(json.dumps(info))


RESIDENT_PLANTS: dict[str, Plant] = {
    "serve.sock -> attacker": _socket_link,
    "serve.json -> attacker's port": _serve_json,
}


def outside_files(lab: Lab) -> None:
    out = lab.outside
    (out / "memory" / "daily").mkdir(parents=True, exist_ok=True)
    (out / "memory" / "archive").mkdir(parents=True, exist_ok=True)
    for rel in ("secret.md", "memory/core.md", "memory/daily/2026-11-22.md", "memory/x.md"):
        (out / rel).write_text(f"# outside\n\n- {OUTSIDE_TEXT} sk-ant-api03-abcdefghijklmnop\n")
    (out / "canary.txt").write_text("precious bytes\n")
    (out / "canary.db").write_bytes(b"not a database, and must stay so\n")
    (out / "canary-state.db").write_bytes(b"nor this one\n")
    (out / "state").mkdir(exist_ok=True)
    checkouts = lab.work / "checkouts"
    for i in range(7):  # more than the snapshots kept, so a prune would reach them
        repo = checkouts / f"repo{i}"
        (repo / "src").mkdir(parents=True, exist_ok=True)
        (repo / "src" / "main.py").write_text(f"print({i})\n")


def commands(lab: Lab, root: Path) -> list[list[str]]:
    v = ["--vault", str(root)]
    tool = [*v, "tools", "--call"]
    return [
        [*v, "search", "hello"],
        [*v, "search", "hello", "--as-of", "HEAD"],
        [*v, "search", "hello", "--as-of", "nonexistent"],
        [*v, "status"],
        [*v, "context"],
        [*v, "show", "core"],
        [*v, "show", "memory/core.md"],
        [*v, "show", "memory/daily/2026-11-19.md"],
        [*v, "show", "core", "--as-of", "HEAD"],
        [*v, "index", "--no-embed"],
        [*v, "add", "a note from the chaos round"],
        [*tool, "search_memory", "--args", '{"query": "hello", "as_of": "HEAD"}'],
        [*tool, "search_memory", "--args", '{"query": "outside canary"}'],
        [*tool, "load_memory", "--args", '{"what": "file", "path": "memory/core.md"}'],
        [*tool, "load_memory", "--args", '{"what": "file", "path": "memory/core.md\\u0000"}'],
        [*tool, "load_memory", "--args", '{"what": "today"}'],
        [*tool, "remember", "--args", '{"text": "remembered in the chaos round"}'],
    ]


def run(lab: Lab, counts: Counts, notes: list[str], argv: list[str]) -> None:
    proc = subprocess.Popen(
        [lab.memctl, *argv],
        env=lab.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        counts.hangs += 1
        notes.append(f"{' '.join(argv[2:])}: still running after {HANG_SECONDS:.0f} s")
        return
    if proc.returncode == 70 or "Traceback" in err:
        counts.internal += 1
        notes.append(f"{' '.join(argv[2:])}: exit {proc.returncode}: {err.strip()[-200:]}")
    if OUTSIDE_TEXT in out or OUTSIDE_TEXT in err:
        counts.outside += 1
        notes.append(f"{' '.join(argv[2:])}: showed an outside file's text")


def mcp_round(lab: Lab, counts: Counts, notes: list[str], root: Path) -> None:
    """The MCP server over HTTP: the planted token and the second user are refused."""
    proc = subprocess.Popen(
        [lab.memctl, "--vault", str(root), "mcp", "--http", "--port", "0"],
        env=lab.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + HANG_SECONDS
        url = None
        while time.monotonic() < deadline and proc.poll() is None and url is None:
            line = proc.stderr.readline() if proc.stderr else ""
            lines.append(line)
            if "serving MCP" in line:
                url = line.split(" on ")[-1].strip()
        if url is None:
            if proc.poll() is None:
                counts.hangs += 1
                notes.append("mcp --http: not serving after the time bound")
            elif proc.returncode == 70 or "Traceback" in "".join(lines):
                counts.internal += 1
            return  # refused to start (a planted link): nothing is served
        for who, token in (("planted token", PLANTED_TOKEN), ("no token", None)):
            status = _initialize(url, token, lab.ids if who == "no token" else None)
            if status != 401:
                counts.served += 1
                notes.append(f"mcp --http answered {status} to {who}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            counts.hangs += 1


PEER_POST = r"""
import json, sys, urllib.request, urllib.error
body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
if sys.argv[2]:
    headers["Authorization"] = "Bearer " + sys.argv[2]
request = urllib.request.Request(sys.argv[1], data=json.dumps(body).encode(), headers=headers)
try:
    with urllib.request.urlopen(request, timeout=20) as answer:
        print(answer.status)
except urllib.error.HTTPError as exc:
    print(exc.code)
"""


def _initialize(url: str, token: str | None, ids: tuple[int, int] | None) -> int:
    done = subprocess.run(
        [
            *as_peer(["/usr/bin/python3" if ids else sys.executable, "-I", "-c", PEER_POST], ids),
            url,
            token or "",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    try:
        return int(done.stdout.strip())
    except ValueError:
        return 0


# What a client hands to a resident process (memctl.resident.client.SERVED): the
# commands a planted serve.sock or serve.json could steer.
SERVED = ("search", "status", "context", "tools")


def one_round(
    lab: Lab, name: str, plant: Plant, counts: Counts, notes: list[str], *, served_only: bool
) -> None:
    slug = "".join(c if c.isalnum() else "-" for c in name)
    origin = lab.work / "origins" / slug
    subprocess.run([lab.memctl, "init", str(origin)], env=lab.env, capture_output=True, check=True)
    (origin / "memory" / "daily" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n- 10:00 hello from the shared vault, привет, שלום\n"
    )
    git(origin, "init", "-q")
    plant(origin, lab)
    git(origin, "add", "-A")
    git(origin, "add", "-f", "--", ".")
    git(origin, "commit", "-qm", "a shared vault")
    root = lab.work / "checkouts" / f"clone-{slug}"
    git(lab.work / "checkouts", "clone", "-q", str(origin), root.name)
    before = tree_of(lab.work, skip=root)
    started = time.monotonic()
    tried: set[str] = set()
    for argv in commands(lab, root):
        if served_only and (argv[2] not in SERVED or argv[2] in tried):
            continue  # one of each command a client hands over is enough to count
        tried.add(argv[2])
        run(lab, counts, notes, argv)
    if not served_only:
        mcp_round(lab, counts, notes, root)
    after = tree_of(lab.work, skip=root)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if changed:
        counts.outside += len(changed)
        notes.append(f"{name}: outside changed: {changed[:4]}")
    received = lab.attacker.received()
    for message in received:
        if lab.env[CANARY_ENV].encode() in message:
            counts.env_sent += len(message)
    if received:
        notes.append(f"{name}: the attacker's listener got {len(received)} connection(s)")
    counts.rounds += 1
    print(f"  clone round {name!r}: {time.monotonic() - started:.0f} s", file=sys.stderr)


def hostile_clone(work: Path, memctl: str, quick: bool) -> list[tuple[str, Counts, list[str]]]:
    """Both rows: the clone's own planted files, then resident-process files."""
    ids = peer_ids()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMCTL_", "ANTHROPIC_"))}
    canary = "canary-" + secrets.token_hex(16)
    env.update(MEMCTL_NOW="2026-11-22T09:30:00", HF_HUB_OFFLINE="1", **{CANARY_ENV: canary})
    work.mkdir(parents=True, exist_ok=True)
    # The listeners' folder is the second user's, reachable from /tmp (the work folder
    # is private).
    sink = Path(tempfile.mkdtemp(prefix="memctl-chaos-sink-"))
    attacker = Attacker(sink / "sink", ids)
    lab = Lab(work, memctl, env, attacker, ids)
    (work / "origins").mkdir()
    outside_files(lab)
    rows = []
    try:
        for title, plants in (
            ("hostile clone", PLANTS),
            ("hostile clone: resident files", RESIDENT_PLANTS),
        ):
            counts, notes = Counts(), list[str]()
            items = list(plants.items())
            for name, plant in items[::3] if quick and len(items) > 3 else items:
                one_round(lab, name, plant, counts, notes, served_only=plants is RESIDENT_PLANTS)
            who = "a second local user" if ids else "this user (no second user here)"
            notes.append(f"attacker's listeners and MCP requests ran as {who}")
            rows.append((title, counts, notes))
    finally:
        attacker.stop()
        shutil.rmtree(sink, ignore_errors=True)
    return rows
