"""The candidate lists: words (BM25), substrings, windows, vectors; SQLite's own reads."""
