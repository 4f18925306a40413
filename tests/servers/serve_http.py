"""Serve an ASGI app over Streamable HTTP on a free local port, for the
Python test servers run with --http: the one place that binds the socket,
starts uvicorn and says where it listens (the tests wait for that line)."""

import socket


def local_socket() -> tuple[socket.socket, int]:
    """A socket bound to a free port of 127.0.0.1, and that port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock, sock.getsockname()[1]


def serve(app, sock: socket.socket, url: str) -> None:
    """Serve `app` on `sock` until killed; print `listening URL` once it
    accepts connections."""
    import anyio
    import uvicorn

    http = uvicorn.Server(uvicorn.Config(app, log_level="warning"))

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(http.serve, [sock])
            while not http.started:
                await anyio.sleep(0.02)
            print(f"listening {url}", flush=True)

    anyio.run(main)
