"""The relevance floor: each result's evidence, the calibrated rule, its calibration."""
