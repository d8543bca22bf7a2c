"""The workbench (`cpsolve app`): a local web page to draw pieces, run every command and browse solutions.

A front end beside the command line, on the public API alone (tests/test_layers.py checks both): the
server (`server.py`, Starlette under uvicorn, the optional extra `cpsolve[app]`) serves one page and a
small JSON API; every run happens in a worker process (`worker.py`, managed by `jobs.py`) that calls
the API as the command line does, with its limits, deadlines, solutions file and journal. Security as
a local tool (`guard.py`): 127.0.0.1 unless told otherwise, a token exchanged for a cookie, a Host
allow-list, Origin checks, no CORS, nosniff and a CSP; files only inside the folder it was started in
(`folder.py`).

Nothing here is imported by other commands: `cpsolve app` imports this package, and Starlette and
uvicorn only once the server starts.
"""

from __future__ import annotations
