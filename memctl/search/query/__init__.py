"""What a query asks: its words parsed (pure), their vocabulary, its vector, what it matches."""
