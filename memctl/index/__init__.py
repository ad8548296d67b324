"""The derived SQLite mirror of the vault: chunker, store, embedder, sync, watcher."""
