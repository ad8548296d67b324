"""What a search shows: snippets within a token budget, and the results built from them."""
