"""A headless Chromium driven through its DevTools protocol (for pages that draw with JavaScript),
and a TensorBoard server to show it.

Used by the dashboard's and TensorBoard's browser tests and by ``benchmarks/screenshots.py``.
Needs Debian's ``chromium`` and ``websocket-client``; :data:`CHROMIUM` is
None where there is no browser.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


# JavaScript defining ``within(root)``: every element under ``root``, those inside (nested)
# shadow roots too, where Polymer apps such as TensorBoard's dashboards keep theirs.
WITHIN = """const within = (root, out = []) => {
  for (const el of root.querySelectorAll("*")) {
    out.push(el);
    if (el.shadowRoot) within(el.shadowRoot, out);
  }
  return out;
};"""


def until(probe, timeout=30, every=0.1):
    """``probe()``'s first truthy value, asked until ``timeout`` s have passed (then its last)."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(every)


@contextlib.contextmanager
def chromium(width=1400, height=900):
    """A headless Chromium on 127.0.0.1 showing ``about:blank``: yields its page's :class:`DevTools`."""
    import websocket  # websocket-client: the test extra

    with tempfile.TemporaryDirectory() as profile:
        flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0"]
        flags += ["--remote-debugging-address=127.0.0.1", f"--window-size={width},{height}"]
        proc = subprocess.Popen(
            [CHROMIUM, *flags, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            port_file = os.path.join(profile, "DevToolsActivePort")
            if not until(lambda: os.path.exists(port_file) and os.path.getsize(port_file), timeout=30):
                raise RuntimeError(f"{CHROMIUM} wrote no DevToolsActivePort in 30 s")
            with open(port_file) as f:
                port = int(f.readline())
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as answer:
                target = next(t for t in json.loads(answer.read()) if t["type"] == "page")
            # No Origin header: Chromium 111+ refuses DevTools connections from an origin not listed.
            url = target["webSocketDebuggerUrl"]
            page = DevTools(websocket.create_connection(url, timeout=30, suppress_origin=True))
            page.viewport(width, height)
            yield page
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)


class DevTools:
    """One page of the browser: commands by name, as the protocol's documentation lists them."""

    def __init__(self, ws):
        self.ws, self.ids = ws, iter(range(1, 1_000_000))

    def call(self, method, **params):
        """Send ``method`` and return its answer (events arriving meanwhile are dropped)."""
        ident = next(self.ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            answer = json.loads(self.ws.recv())
            if answer.get("id") == ident:
                return answer

    def viewport(self, width, height):
        """Show pages at ``width`` x ``height`` CSS pixels."""
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.call("Emulation.setDeviceMetricsOverride", **metrics)

    def navigate(self, url):
        self.call("Page.navigate", url=url)

    def evaluate(self, expression):
        """The value of a JavaScript ``expression`` in the page (None if it raised)."""
        answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return answer.get("result", {}).get("result", {}).get("value")

    def wait_for(self, expression, timeout=30, every=0.25):
        """``expression``'s first truthy value in the page, asked until ``timeout`` s have passed
        (then its last: pages that draw with JavaScript draw after they load)."""
        return until(lambda: self.evaluate(expression), timeout=timeout, every=every)

    def screenshot(self, path, width=None, height=None):
        """Save what the page shows to ``path`` (PNG), at ``width`` x ``height`` if given."""
        if width is not None and height is not None:
            self.viewport(width, height)
        answer = self.call("Page.captureScreenshot", format="png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(answer["result"]["data"]))


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def tensorboard(logdir, ready=None, timeout=60):
    """``python -m tensorboard.main`` serving ``logdir`` on 127.0.0.1: yields its base URL once
    ``ready(base)`` (default: it answers)."""
    port = free_port()
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", logdir, "--host", "127.0.0.1"]
    proc = subprocess.Popen(
        [*command, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its data server goes down with it
    )
    base = f"http://127.0.0.1:{port}"
    try:
        if not until(lambda: (ready or _answers)(base), timeout=timeout, every=0.25):
            raise RuntimeError(f"TensorBoard on {base} was not ready in {timeout} s")
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _answers(url) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status == 200
    except OSError:
        return False


def scalar_line_points(tag: str) -> str:
    """JavaScript: the most points on one line of TensorBoard's chart of ``tag`` (-1: no chart;
    Plottable draws each line as an SVG path)."""
    return (
        "(() => {"
        + WITHIN
        + f"""
  const card = within(document).find((el) => el.tagName === "TF-SCALAR-CARD" && el.tag === {json.dumps(tag)});
  if (!card) return -1;
  const lines = within(card.shadowRoot || card).filter(
    (el) => el.tagName === "path" && (el.getAttribute("class") || "").split(" ").includes("line"));
  return Math.max(-2, ...lines.map((el) => ((el.getAttribute("d") || "").match(/[ML]/g) || []).length));
}})()"""
    )
