"""The SQLite index's CandidateSource (candidates.py) and its lists: words (BM25),
substrings, windows, vectors, each read with SQLite's own SQL; a shared server's are
memctl.index.postgres's."""
