"""What both backends' candidate lists share, below both: the parsed query, word folding,
the lexical plan and filters, and how substring hits are scored (memctl.index.sqlite and
memctl.index.postgres plan with it; memctl.search reads what they found)."""
