"""The report in headless Chromium: no console errors, no network requests, the script works.

Skips cleanly when Chromium, chromedriver or selenium is absent (`.ci/install-chromium.sh`
installs the Debian packages `chromium` and `chromium-driver`).
"""
from __future__ import annotations

import json
import shutil

import pytest

from offline_eval.report import render_report
from tests.report.sample import sample_rows, sample_summary

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-dev-shm-usage",
                  "--disable-extensions", "--no-first-run", "--window-size=1280,2000",
                  # belt and braces: the browser resolves no host but loopback
                  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost")


def _binaries() -> tuple[str, str]:
    browser = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip("chromium and chromedriver not installed (.ci/install-chromium.sh)")
    return browser, driver


@pytest.fixture
def driver(loopback_only, monkeypatch):
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    browser, chromedriver = _binaries()
    monkeypatch.setenv("SE_OFFLINE", "true")   # never let Selenium Manager download anything
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    try:
        drv = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    except Exception as exc:  # a broken install is an environment problem, not a report bug
        pytest.skip(f"headless chromium did not start: {exc}")
    try:
        yield drv
    finally:
        drv.quit()


def _requested_urls(drv) -> list[str]:
    urls = []
    for entry in drv.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


@pytest.mark.parametrize("grouped", [True, False])
def test_report_has_no_console_errors(driver, tmp_path, grouped):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rows = sample_rows(grouped)
    path = tmp_path / "report.html"
    render_report(rows, sample_summary(rows), path, title="browser test")
    driver.get(path.as_uri())

    assert driver.title == "browser test"
    shown = driver.find_element(By.ID, "shown").text
    assert shown == f"{len(rows)} of {len(rows)} shown"          # the script ran
    driver.find_element(By.ID, "expand").click()
    details = driver.find_elements(By.CSS_SELECTOR, "section.resp details")
    assert details and all(d.get_attribute("open") is not None for d in details)
    Select(driver.find_element(By.ID, "filter")).select_by_value("error")
    assert driver.find_element(By.ID, "shown").text == f"1 of {len(rows)} shown"
    Select(driver.find_element(By.ID, "filter")).select_by_value("all")
    driver.find_element(By.ID, "collapse").click()
    driver.find_element(By.CSS_SELECTOR, "a.cb").click()           # a claim badge opens its claim
    assert driver.find_element(By.CSS_SELECTOR, "section.resp details.claims") \
        .get_attribute("open") is not None

    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert errors == []
    assert all(u.startswith(("file:", "data:", "about:")) for u in _requested_urls(driver))


def test_empty_report_has_no_console_errors(driver, tmp_path):
    path = tmp_path / "empty.html"
    render_report([], {}, path)
    driver.get(path.as_uri())
    assert [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"] == []


def test_harness_sees_errors_and_external_requests(driver, tmp_path):
    """The check above can fail: a script error and a blocked remote image are both reported."""
    from offline_eval.report import report_html

    page = report_html([], {}).replace(
        "</main>", '<img src="https://example.invalid/x.png" alt=""></main>'
                   "<script>notDefinedAnywhere();</script>")
    path = tmp_path / "bad.html"
    path.write_text(page, encoding="utf-8")
    driver.get(path.as_uri())
    messages = " ".join(e["message"] for e in driver.get_log("browser")
                        if e.get("level") == "SEVERE")
    assert "notDefinedAnywhere" in messages
    assert "Content Security Policy" in messages


def test_loopback_fixture_keeps_other_addresses_blocked(loopback_only):
    import socket

    with pytest.raises(RuntimeError, match="must not open sockets"):
        socket.create_connection(("10.255.255.1", 80), timeout=0.1)
    with pytest.raises(RuntimeError):
        socket.getaddrinfo("example.com", 443)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(RuntimeError):
            s.connect(("192.0.2.1", 80))
    finally:
        s.close()
    assert socket.getaddrinfo("127.0.0.1", 80)


def test_sockets_blocked_again_after_fixture():
    import socket

    with pytest.raises(RuntimeError):
        socket.create_connection(("127.0.0.1", 9))
