"""The relevance floor: each result's evidence and the calibrated rule (calibrated by tools/)."""
