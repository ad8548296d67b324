"""The indexed fixture vault of tests/search, for the agent tests that search it."""

from tests.search.conftest import fixture_copy, indexed_fixture  # noqa: F401  (shared fixtures)
