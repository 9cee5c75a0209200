"""An asyncio TCP server on 127.0.0.1 in a daemon thread of its own: the raw HTTP peers some tests need (a hostile
server, a proxy in front of a real one)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextmanager
def loopback_server(handle: Handler) -> Iterator[int]:
    """The port of a server calling `handle` for each connection; its tasks cancelled and its thread joined at the
    end."""
    ready = threading.Event()
    loops: list[asyncio.AbstractEventLoop] = []
    ports: list[int] = []

    def run() -> None:
        async def main() -> None:
            server = await asyncio.start_server(handle, "127.0.0.1", 0)
            ports.append(server.sockets[0].getsockname()[1])
            loops.append(asyncio.get_running_loop())
            ready.set()
            async with server:
                await server.serve_forever()

        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30)
    try:
        yield ports[0]
    finally:
        loop = loops[0]
        for task in asyncio.all_tasks(loop):
            loop.call_soon_threadsafe(task.cancel)
        thread.join(30)
