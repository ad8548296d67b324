-- index.db + state.db as memctl wrote them from 8e2f07d (the first schema) until migrations;
-- taken verbatim from memctl/index/store.py at that commit (git show 8e2f07d:memctl/index/store.py).
-- Run on an index.db connection with state.db attached as state, after:
--   CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[DIM] distance_metric=cosine)
CREATE TABLE IF NOT EXISTS state.embed_cache(
  model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash));
CREATE TABLE IF NOT EXISTS state.usage(
  hash TEXT PRIMARY KEY, created_at TEXT, last_referenced_at TEXT, access_count INTEGER);
CREATE TABLE IF NOT EXISTS state.reference_log(
  id INTEGER PRIMARY KEY, hash TEXT, path TEXT, ts TEXT, kind TEXT, query TEXT);
CREATE INDEX IF NOT EXISTS state.reference_log_ts ON reference_log(ts);
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(
  path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, hash TEXT, indexed_at TEXT);
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY, path TEXT, line_start INTEGER, line_end INTEGER,
  heading TEXT, text TEXT, hash TEXT,
  tier TEXT, source TEXT, date TEXT, tags TEXT,
  importance REAL, embedded INTEGER DEFAULT 0);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE INDEX IF NOT EXISTS chunks_pending ON chunks(embedded) WHERE embedded = 0;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  heading, text, content='chunks', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_trigram USING fts5(
  text, content='chunks', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
  INSERT INTO chunks_trigram(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, heading, text)
    VALUES ('delete', old.id, old.heading, old.text);
  INSERT INTO chunks_trigram(chunks_trigram, rowid, text) VALUES ('delete', old.id, old.text);
  DELETE FROM chunks_vec WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF heading, text ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, heading, text)
    VALUES ('delete', old.id, old.heading, old.text);
  INSERT INTO chunks_trigram(chunks_trigram, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO chunks_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
  INSERT INTO chunks_trigram(rowid, text) VALUES (new.id, new.text);
END;
