"""`claims serve`'s application on a real socket, 127.0.0.1 and a free port, in a thread of the test.

with LiveServer(Settings(db=..., sources_dir=...)) as server:
    server.url          # "http://127.0.0.1:PORT"
"""

from __future__ import annotations

import threading
import time

import uvicorn

from claimsdb.cli.serve import listen
from claimsdb.web.app import Settings, create_app

START_TIMEOUT_S = 10.0


class LiveServer:
    def __init__(self, settings: Settings) -> None:
        self.app = create_app(settings)
        self.socket = listen("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            proxy_headers=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run,
            kwargs={"sockets": [self.socket]},
            daemon=True,
            name="claims-serve-test",
        )

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.socket.close()
