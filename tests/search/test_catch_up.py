"""Issue 17: a search embeds a few pending chunks itself; many get one notice and a fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memctl.index.catch_up import catch_up_bound, pending_notice
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.search import search
from memctl.vault import Vault
from tests.search.conftest import NOW


def _vault(root: Path, notes: int, toml: str = "") -> Vault:
    from memctl.memory import init_vault

    init_vault(root)
    if toml:
        (root / ".memctl.toml").write_text(toml, encoding="utf-8")
    lines = [
        f"- 09:{i % 60:02d} the billing export for customer {i} is due on friday"
        for i in range(notes)
    ]
    (root / "memory" / "daily" / "2026-11-21.md").write_text(
        "# 2026-11-21\n\n" + "\n\n".join(lines) + "\n", encoding="utf-8"
    )
    return Vault(root)


def test_bound_follows_the_models_speed() -> None:
    fast = catch_up_bound("sentence-transformers/all-MiniLM-L6-v2", 1.0)
    slow = catch_up_bound("intfloat/multilingual-e5-small", 1.0)
    unknown = catch_up_bound("someone/huge-model", 1.0)
    assert fast > slow > unknown >= 1
    assert catch_up_bound("sentence-transformers/all-MiniLM-L6-v2", 0) == 0
    assert catch_up_bound("sentence-transformers/all-MiniLM-L6-v2", 2.0) == 2 * fast


def test_notice_names_the_fix() -> None:
    text = pending_notice(12, has_vectors=False)
    assert "12 chunks" in text and "`memctl index`" in text and "memctl watch &" in text


def test_first_search_of_a_new_vault_embeds_and_uses_vectors(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "v", notes=3)
    response = search(
        vault, "when is the money report due", log=False, explain=True, now=NOW, use_floor=False
    )
    assert response.pending_embeddings == 0
    assert response.notices == []
    assert any("vector" in r.explain["raw"] for r in response.results if r.explain)
    with Store.open(vault) as store:
        assert store.pending_count() == 0


def test_many_pending_answer_from_words_with_one_notice(tmp_path: Path) -> None:
    # A budget of 0.1 s covers 3 chunks of the default model: 20 notes are too many.
    vault = _vault(tmp_path / "v", notes=20, toml="[embed]\nsearch_embed_seconds = 0.1\n")
    response = search(vault, "billing export", log=False, now=NOW)
    assert response.results
    assert response.pending_embeddings > catch_up_bound(vault.settings.embed.model, 0.1)
    assert len(response.notices) == 1 and "memctl index" in response.notices[0]
    with Store.open(vault) as store:
        assert store.pending_count() == response.pending_embeddings  # nothing embedded


def test_lexical_mode_neither_embeds_nor_warns(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "v", notes=2)
    response = search(vault, "billing export", log=False, mode="lexical", now=NOW)
    assert response.results and response.notices == []
    assert response.pending_embeddings > 0


def test_index_of_another_model_is_not_re_embedded_by_a_search(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "v", notes=2)
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        store.conn.execute("UPDATE meta SET value = 'other/model' WHERE key = 'model_id'")
        store.conn.commit()
        pending = store.pending_count()
    response = search(vault, "billing export", log=False, now=NOW)
    assert response.pending_embeddings == pending > 0


WRITER = """
import sys
from pathlib import Path
from memctl.agent.tools import call_tool
from memctl.memory import add_note
from memctl.vault import Vault
vault = Vault(Path(sys.argv[1]))
add_note(vault, "a plain note")
assert call_tool(vault, "remember", {"text": "a remembered fact"})["ok"]
call_tool(vault, "update_core_memory", {"section": "Iron rules", "text": "never force-push"})
loaded = [m for m in ("fastembed", "onnxruntime", "memctl.index.embed") if m in sys.modules]
print(",".join(loaded))
"""


def test_writes_never_load_the_model(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "v", notes=1)
    sync(vault, embed=False, now=NOW)
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(vault.root)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""
