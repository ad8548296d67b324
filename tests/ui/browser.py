"""Debian's Chromium, headless, driven by selenium through /usr/bin/chromedriver.

Nothing is downloaded: selenium is given the driver's path (its manager never runs) and
the browser's binary. Where they are missing the browser tests skip, naming the install
(scripts/_install does it as root where apt is available).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1100,800",
    "--lang=en-US",
)
SHOTS_ENV = "MEMCTL_UI_SCREENSHOTS"  # a folder to copy the screenshots into (docs/img)


def need_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        pytest.skip(
            f"no {' and '.join(missing)}: `apt-get install chromium chromium-driver` "
            "(scripts/_install does it as root)"
        )


@contextmanager
def chromium() -> Iterator[Any]:
    need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="memctl-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screenshot(driver: Any, folder: Path, name: str) -> Path:
    """A PNG of the page into `folder`, and into $MEMCTL_UI_SCREENSHOTS when set."""
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 1000
    extra = os.environ.get(SHOTS_ENV)
    if extra:
        # For the docs: 64 colours (the page has few), a third of the bytes, same look.
        from PIL import Image

        with Image.open(path) as shot:
            small = shot.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
            small.save(Path(extra) / path.name, optimize=True)
    return path
