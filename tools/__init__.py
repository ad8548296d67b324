"""Offline work on memctl, not shipped with it: the relevance floor's calibration (floor_fit,
floor_learn, floor_design) that scripts/eval_shared runs. Typed and checked as the
library is (mypy strict); nothing under memctl/ imports it."""
