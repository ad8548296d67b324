"""The learned second stage: the best candidates' windows, their features, the model."""
