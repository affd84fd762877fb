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
    from selenium.webdriver.common.action_chains import ActionChains

    rows = sample_rows(grouped)
    path = tmp_path / "report.html"
    render_report(rows, sample_summary(rows), path, title="browser test")
    driver.get(path.as_uri())

    assert driver.title == "browser test"
    shown = driver.find_element(By.ID, "shown").text
    assert shown == f"{len(rows)} of {len(rows)} shown"          # the script ran
    driver.find_element(By.ID, "expand").click()                   # inflates every card, opens all
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 5).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".zbody details")
                                   and d.execute_script(
        "return Array.prototype.every.call(document.querySelectorAll('section.resp details'),"
        " function (e) { return e.open; })"))
    Select(driver.find_element(By.ID, "filter")).select_by_value("error")
    assert driver.find_element(By.ID, "shown").text == f"1 of {len(rows)} shown"
    Select(driver.find_element(By.ID, "filter")).select_by_value("all")
    driver.find_element(By.ID, "collapse").click()
    badge = driver.find_element(By.CSS_SELECTOR, "a.cb")
    target = badge.get_attribute("href").split("#")[1]
    assert badge.get_attribute("title") in (None, "")              # titled when pointed at
    ActionChains(driver).move_to_element(badge).perform()
    classes = badge.get_attribute("class").split()
    status = next(c[2:] for c in classes if c.startswith("s-"))
    imp = next(c[4:] for c in classes if c.startswith("imp-"))
    assert badge.get_attribute("title") == f"claim {badge.text}: {status}, {imp}"
    badge.click()                                                  # a claim badge opens its claim
    claim = _wait_for(driver, f"#{target}")                        # once its card is inflated
    assert claim.is_displayed()
    assert driver.find_element(By.CSS_SELECTOR, "section.resp details.body") \
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


def _wait_for(drv, css, timeout=5.0):
    """The element once the page has made it (a card's body is inflated asynchronously)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(drv, timeout).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


def _export(drv, kind):
    return drv.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        f"offlineEvalExport('{kind}').then(done, function (e) {{ done('ERROR ' + e); }});")


def _render(tmp_path, rows=None):
    rows = sample_rows(grouped=True) if rows is None else rows
    path = tmp_path / "report.html"
    render_report(rows, sample_summary(rows), path, title="audit")
    return rows, path


def _viewport(drv, width=1400, height=900):
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                        {"width": width, "height": height, "deviceScaleFactor": 1,
                         "mobile": False})


def _visible_ids(drv) -> list[str]:
    return drv.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('section.resp:not(.hidden)'),"
        " function (s) { return s.querySelector('.rid').textContent; });")


def _severe(drv) -> list[str]:
    return [e["message"] for e in drv.get_log("browser") if e.get("level") == "SEVERE"]


def test_first_screen_answers_the_audit_question(driver, tmp_path):
    """At 1400×900: the count of incorrect answers and the worst answers show without
    scrolling, and one click on the worst puts its claim's deciding evidence on screen."""
    from selenium.webdriver.common.by import By

    from offline_eval.audit.tally import verdict_counts

    rows, path = _render(tmp_path)
    _viewport(driver)
    driver.get(path.as_uri())
    counts = verdict_counts([r for r in rows if r["status"] == "ok"])["responses"]
    in_view = ("var r = arguments[0].getBoundingClientRect();"
               "return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;")
    tile = driver.find_element(By.ID, "count-incorrect")
    assert tile.find_element(By.CSS_SELECTOR, ".v").text == str(counts["incorrect"])
    assert driver.execute_script(in_view, tile)
    for verdict, n in counts.items():
        found = driver.find_elements(By.ID, f"count-{verdict.replace('_', '-')}")
        assert (found[0].find_element(By.CSS_SELECTOR, ".v").text if found else "0") == str(n)
    first = driver.find_element(By.CSS_SELECTOR, "#worst li a.wl")
    assert driver.execute_script(in_view, first)
    target = first.get_attribute("data-open")
    driver.save_screenshot(str(tmp_path / "first-screen.png"))
    first.click()
    evidence = _wait_for(driver, f"#{target} li.ev.decisive")
    assert driver.execute_script(
        "var r = arguments[0].getBoundingClientRect();"
        "return r.top >= 0 && r.top < window.innerHeight - 40;", evidence)
    assert f"open={target}" in driver.execute_script("return location.hash")
    assert (tmp_path / "first-screen.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _severe(driver) == []


def test_sort_filter_and_url_state(driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rows, path = _render(tmp_path)
    driver.get(path.as_uri())
    ok = [r for r in rows if r["status"] == "ok"]
    Select(driver.find_element(By.ID, "filter")).select_by_value("incorrect")
    incorrect = [r["id"] for r in ok if r["audit"]["verdict"] == "incorrect"]
    assert sorted(_visible_ids(driver)) == sorted(incorrect)
    Select(driver.find_element(By.ID, "group")).select_by_value("wrong")
    assert _visible_ids(driver) == [r["id"] for r in ok if r["audit"]["verdict"] == "incorrect"
                                    and r["group"] == "wrong"]
    link = driver.execute_script("return location.href")
    assert "verdict=incorrect" in link and "group=wrong" in link

    driver.get("about:blank")
    driver.get(link)                                              # the link reproduces the view
    assert Select(driver.find_element(By.ID, "filter")).first_selected_option \
        .get_attribute("value") == "incorrect"
    assert _visible_ids(driver) == ["everest"]

    driver.get(path.as_uri() + "#claim=rule")                     # a rule decided a claim
    assert set(_visible_ids(driver)) == {"everest", "danube"}
    driver.get(path.as_uri() + "#sort=id")
    ids = _visible_ids(driver)
    assert ids == sorted(ids, key=str) and len(ids) == len(rows)
    driver.get(path.as_uri() + "#sort=metric-asc&metric=factscore_precision&max=0.9")
    shown = _visible_ids(driver)
    values = {r["id"]: r["metrics"]["factscore_precision"] for r in ok}
    assert shown and all(values[i] is not None and values[i] <= 0.9 for i in shown)
    assert [values[i] for i in shown] == sorted(values[i] for i in shown)
    driver.get(path.as_uri())                                     # default: worst first
    assert _visible_ids(driver)[0] == "everest"
    driver.find_element(By.ID, "count-partially-correct").click()    # a tile filters
    assert set(_visible_ids(driver)) == {"danube"}
    assert _severe(driver) == []


def test_export_of_the_current_view(driver, tmp_path):
    import csv
    import io
    import time

    from selenium.webdriver.common.by import By

    import copy

    rows = sample_rows(grouped=False)
    formula = copy.deepcopy(next(r for r in rows if r["id"] == "nile"))
    formula["id"] = "=SUM(1,2)"
    formula["claims"][0]["text"] = "@risk"
    rows, path = _render(tmp_path, rows + [formula])
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(downloads)})
    driver.get(path.as_uri() + "#verdict=incorrect")
    text = _export(driver, "csv")
    table = list(csv.DictReader(io.StringIO(text)))
    everest = next(r for r in rows if r["id"] == "everest")
    assert [t["claim_id"] for t in table] == [c["id"] for c in everest["claims"]]
    assert table[0]["answer_verdict"] == "incorrect" and table[0]["rule"] == "numbers"
    assert table[0]["evidence_document"] == "Everest"
    assert json.loads(_export(driver, "json"))[0]["id"] == "everest"
    driver.find_element(By.ID, "export-csv").click()
    target = downloads / "offline-eval-view.csv"
    for _ in range(50):
        if target.exists():
            break
        time.sleep(0.1)
    assert target.read_bytes().decode("utf-8") == text
    # a cell that a spreadsheet would run as a formula is made inert
    driver.get(path.as_uri() + "#q=sum(1")
    inert = list(csv.DictReader(io.StringIO(_export(driver, "csv"))))
    assert [(t["answer_id"], t["claim"]) for t in inert][0] == ("'=SUM(1,2)", "'@risk")
    assert _severe(driver) == []
    assert all(u.startswith(("file:", "data:", "about:", "blob:")) for u in _requested_urls(driver))


def test_fragment_values_groups_and_export_order(driver, tmp_path):
    """An encoded "&" or a stray "%" in the fragment, groups that are not strings, and the
    export following the order shown."""
    import copy

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rows = sample_rows(grouped=False)
    odd = copy.deepcopy(rows[0])
    odd.update(id="at&t", group=True)
    num = copy.deepcopy(rows[1])
    num.update(id="one", group=1.0)
    rows, path = _render(tmp_path, rows + [odd, num])
    driver.get(path.as_uri() + "#q=" + "at%26t")
    assert driver.find_element(By.ID, "search").get_attribute("value") == "at&t"
    assert _visible_ids(driver) == ["at&t"]
    driver.get(path.as_uri() + "#q=100%")                  # malformed: read as typed
    assert driver.find_element(By.ID, "shown").text.endswith("shown")
    driver.get(path.as_uri())
    Select(driver.find_element(By.ID, "group")).select_by_value("True")
    assert _visible_ids(driver) == ["at&t"]
    Select(driver.find_element(By.ID, "group")).select_by_value("1.0")
    assert _visible_ids(driver) == ["one"]
    Select(driver.find_element(By.ID, "group")).select_by_value("all")   # (no group)
    assert "at&t" not in _visible_ids(driver) and len(_visible_ids(driver)) == len(rows) - 2
    driver.get(path.as_uri() + "#sort=id")
    exported = [r["id"] for r in json.loads(_export(driver, "json"))]
    assert exported == _visible_ids(driver) == sorted(exported)
    assert _severe(driver) == []


def test_every_pack_inflates_whatever_its_length(driver, tmp_path):
    """base85 ends a pack of n bytes with a short group when n is not a multiple of 4: packs
    of every remainder inflate in the page to the bodies Python packed."""
    import re

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from offline_eval.report.response import unpacked

    rows = [{**r, "id": f"{r['id']}-{k}"} for k in range(6) for r in sample_rows(grouped=True)]
    rows, path = _render(tmp_path, rows)
    page = path.read_text(encoding="utf-8")
    packs = re.findall(r'id="zp-\d+">([^<]*)<', page)
    remainders = {len(p) % 5 for p in packs}   # 5 characters for 4 bytes: 0 or 2-4 left over
    assert len(remainders) >= 3, remainders
    bodies = [b for p in packs for b in unpacked(p)]
    driver.get(path.as_uri())
    driver.find_element(By.ID, "expand").click()
    WebDriverWait(driver, 10).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".zbody"))
                                    + len(d.find_elements(By.CSS_SELECTOR, "details.body .error-box"))
                                    == len(bodies))
    assert driver.find_elements(By.CSS_SELECTOR, "details.body .error-box") == []
    shown = driver.execute_script(   # the text, since opening marks the inner details open
        "return Array.prototype.map.call(document.querySelectorAll('.zbody'),"
        " function (z) { return z.textContent; });")
    assert sorted(shown) == sorted(
        driver.execute_script("var d = document.createElement('div'); return arguments[0].map("
                              "function (h) { d.innerHTML = h; return d.textContent; });",
                              [b["html"] for b in bodies]))
    assert _severe(driver) == []


def test_a_damaged_pack_breaks_its_cards_only(driver, tmp_path):
    """A pack whose text is not base85 shows its cards as "could not be unpacked"; the cards
    of the other packs open, and the page logs no error."""
    import re

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    rows = [{**r, "id": f"{r['id']}-{k}"} for k in range(3) for r in sample_rows(grouped=True)]
    rows, path = _render(tmp_path, rows)
    page = path.read_text(encoding="utf-8")
    assert len(re.findall(r'id="zp-\d+"', page)) >= 2
    path.write_text(page.replace('id="zp-0">', 'id="zp-0">\'', 1), encoding="utf-8")
    driver.get(path.as_uri())
    bodies = driver.find_elements(By.CSS_SELECTOR, "details.body")
    broken = [b for b in bodies if b.get_attribute("data-zp") == "0"]
    driver.find_element(By.ID, "expand").click()
    WebDriverWait(driver, 10).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "details.body .zbody, details.body .error-box"))
        == len(bodies))
    errors = driver.find_elements(By.CSS_SELECTOR, "details.body .error-box")
    assert len(errors) == len(broken) > 0
    assert all("could not be unpacked" in e.text for e in errors)
    assert len(driver.find_elements(By.CSS_SELECTOR, ".zbody")) == len(bodies) - len(broken)
    assert _severe(driver) == []
