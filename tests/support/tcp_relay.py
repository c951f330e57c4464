"""A TCP relay: ``python -m tests.support.tcp_relay LISTEN_HOST:PORT=TARGET_HOST:PORT ...``.

Each listening socket forwards every connection to its target, byte for byte, both ways;
when either side closes, the other is closed too. The multi-host test
(tests/submissions/test_hosts.py) runs it in the host's network namespace, bound to the
virtual link's address, so that workers in other network namespaces reach the PostgreSQL
and Redis that listen on 127.0.0.1 only (their configuration stays as it is). It prints
``ready`` once every socket listens.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(1 << 16):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


def _handler(target_host: str, target_port: int):
    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(_pipe(client_reader, upstream_writer), _pipe(upstream_reader, client_writer))

    return handle


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


async def main(routes: list[str]) -> None:
    servers = []
    for route in routes:
        listen, _, target = route.partition("=")
        (listen_host, listen_port), (target_host, target_port) = _address(listen), _address(target)
        servers.append(
            await asyncio.start_server(_handler(target_host, target_port), listen_host, listen_port, reuse_address=True)
        )
    print("ready", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
