"""The workbench as its tests use it: `cpsolve app` started in a folder as a user starts it, its address
read from what it prints, raw HTTP requests to it, and Debian's chromium driven through chromedriver.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import alive, descendants

CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-quic"]


def need_app() -> None:
    """The extra `cpsolve[app]` (the test extra installs it): fail under CI, skip elsewhere."""
    import importlib.util

    if importlib.util.find_spec("starlette") is None or importlib.util.find_spec("uvicorn") is None:
        if os.environ.get("CPSOLVE_CI"):
            pytest.fail("starlette/uvicorn not installed, and CPSOLVE_CI requires them")
        pytest.skip("pip install 'cpsolve[app]'")


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str
    """The printed address, with its token."""
    folder: Path

    @property
    def port(self) -> int:
        return int(re.search(r":(\d+)/", self.url).group(1))  # type: ignore[union-attr]

    @property
    def token(self) -> str:
        return self.url.split("token=", 1)[1]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(self, method: str, path: str, body: object = None, headers: Mapping[str, str] | None = None,
                auth: bool = True) -> tuple[int, dict[str, str], bytes]:
        """One raw request (http.client sends the Host header given, as is)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = {"Host": f"127.0.0.1:{self.port}"}
        if auth:
            sent["Cookie"] = f"cpsolve-app-{self.port}={self.token}"
        if method != "GET":
            sent["Origin"] = self.origin
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        sent = {k: v for k, v in sent.items() if v is not None}
        data = None if body is None else json.dumps(body).encode()
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in sent.items():
            conn.putheader(k, v)
        if data is not None:
            conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        r = conn.getresponse()
        out = r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        conn.close()
        return out

    def api(self, method: str, path: str, body: object = None) -> dict:
        status, _, data = self.request(method, path, body)
        assert status == 200, (status, data[:500])
        return json.loads(data)

    def wait_job(self, job_id: str, timeout: float = 300) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            job = self.api("GET", f"/api/jobs/{job_id}")
            if job["state"] not in ("starting", "running"):
                return job
            time.sleep(0.1)
        raise AssertionError(f"run {job_id} still going after {timeout} s")

    def stop(self) -> int:
        """Ctrl-C, as a user stops it: every run stopped, nothing left behind; the exit status."""
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=60)
        return code


@contextmanager
def workbench(folder: Path, *args: str, cli: tuple[str, ...] = ()) -> Iterator[Server]:
    """`cpsolve [CLI...] app ARGS --no-browser --port 0` in `folder`, until the block ends (then Ctrl-C, and
    no process of it may be left)."""
    need_app()
    proc = subprocess.Popen([sys.executable, "-m", "cpsolve", *cli, "app", *args, "--no-browser", "--port", "0"],
                            cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"(http://\S+\?token=\S+)", line)
    if found is None:
        proc.kill()
        raise AssertionError(f"no address printed: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    server = Server(proc, found.group(1), folder)
    try:
        yield server
    finally:
        kids = descendants(proc.pid)
        if proc.poll() is None:
            server.stop()
        left = [k for k in kids if alive(k)]
        assert not left, f"processes left behind: {left}"


def chromedriver() -> str:
    if not Path(CHROMEDRIVER).exists() or shutil.which("chromium") is None:
        if os.environ.get("CPSOLVE_CI"):
            pytest.fail("chromium / chromium-driver not installed, and CPSOLVE_CI requires them")
        pytest.skip("apt-get install chromium chromium-driver")
    pytest.importorskip("selenium")
    return CHROMEDRIVER


@contextmanager
def browser(download: Path | None = None, size: tuple[int, int] = (1440, 900)) -> Iterator[object]:
    """Headless Debian chromium through Debian's chromedriver (no browser downloaded), a fresh profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    driver_path = chromedriver()
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="cpsolve-chromium-")
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}"]:
        opts.add_argument(flag)
    if download is not None:
        opts.add_experimental_option("prefs", {"download.default_directory": str(download),
                                               "download.prompt_for_download": False})
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(driver: object, script: str, timeout: float = 60, every: float = 0.05) -> object:
    """Poll a JavaScript expression (`return ...`) until it is truthy; its value."""
    end = time.monotonic() + timeout
    value = None
    while time.monotonic() < end:
        value = driver.execute_script(script)  # type: ignore[attr-defined]
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for: {script} (last: {value!r})")
