"""Fusion, the composite score, supersession and diversity over the candidate lists."""
