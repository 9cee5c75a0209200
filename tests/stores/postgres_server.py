"""A real PostgreSQL server of the tests' own: initdb in a temporary folder, run by an unprivileged
user (PostgreSQL refuses root), listening on 127.0.0.1 and a socket inside that folder only."""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg

SUPERUSER = "postgres"
#: The role the stores connect as in the tests: no superuser, owner of the databases it gets.
ROLE = "flue"


#: Stops the server and removes its folder once the test process is gone, however it ended (a
#: killed pytest runs no teardown, and a server started by pg_ctl outlives it).
WATCHDOG = """
import os, shutil, signal, sys, time
alive, data, root = int(sys.argv[1]), sys.argv[2], sys.argv[3]
os.read(alive, 1)  # returns when the test process's end of the pipe closes: when it is gone
try:  # the postmaster's pid is the first line of its pid file; SIGQUIT is an immediate stop
    os.kill(int(open(os.path.join(data, "postmaster.pid")).readline()), signal.SIGQUIT)
    time.sleep(2)
except (OSError, ValueError):
    pass  # not running
shutil.rmtree(root, ignore_errors=True)
"""


def server_binaries() -> Path:
    """The folder holding initdb and pg_ctl: Debian's /usr/lib/postgresql/<version>/bin, or PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).resolve().parent
    raise RuntimeError(
        "the store tests need a PostgreSQL server: install Debian's package (apt-get install -y postgresql); "
        ".ci/run does so when it is missing"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PostgresServer:
    """initdb, start, stop and restart one server; SQL as its superuser; URLs for the tests' role."""

    def __init__(self) -> None:
        self.bin = server_binaries()
        self.root = Path(tempfile.mkdtemp(prefix="flue-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.password = secrets.token_hex(16)
        self.port = 0
        self._as_user: dict[str, Any] = {}
        if os.geteuid() == 0:  # run as the package's `postgres` user, else as nobody; never as root
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                user = pwd.getpwnam("nobody")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as_user = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        self.root.chmod(0o700)
        secret = self.root / "superuser-password"
        secret.write_text(self.password)
        if self._as_user:
            os.chown(secret, self._as_user["user"], self._as_user["group"])
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            f"--pwfile={secret}",
            "--auth-local=trust",  # the socket lives in a folder only the server's user can enter
            "--auth-host=scram-sha-256",  # over TCP a wrong password is refused, as in production
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
        )
        secret.unlink()
        watched, self._alive = os.pipe()  # this process keeps the write end open while it lives
        self._watchdog = subprocess.Popen(
            [sys.executable, "-c", WATCHDOG, str(watched), str(self.data), str(self.root)],
            pass_fds=(watched,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(watched)

    def _run(self, program: str, *args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(self.bin / program), *args],
            capture_output=True,
            text=True,
            cwd=self.root,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C", "LC_ALL": "C"},
            timeout=120,
            **self._as_user,
        )
        if proc.returncode != 0:
            log = self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""
            raise RuntimeError(f"{program} {' '.join(args)} failed:\n{proc.stdout}{proc.stderr}\n{log}")
        return proc

    def start(self) -> None:
        """Start on a free port (a new one if the first was taken meanwhile by someone else)."""
        for attempt in range(5):
            self.port = self.port if self.port and attempt == 0 else free_port()
            options = " ".join(
                [
                    f"-p {self.port}",
                    "-c listen_addresses=127.0.0.1",
                    f"-c unix_socket_directories={self.root}",
                    "-c max_connections=200",
                    # The tests check what clients see when the server process goes away, not the
                    # disk's durability: the OS keeps written pages when the server is killed.
                    "-c fsync=off",
                ]
            )
            try:
                self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", options, "start")
                return
            except RuntimeError:
                if attempt == 4:
                    raise

    def stop(self, mode: str = "fast") -> None:
        """`fast`: clients are disconnected, open transactions rolled back; `immediate`: as if it crashed."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    def remove(self) -> None:
        try:
            self.stop("immediate")
        except RuntimeError:
            pass  # already stopped
        shutil.rmtree(self.root, ignore_errors=True)
        os.close(self._alive)  # the watchdog wakes up, finds nothing left to do, and ends
        self._watchdog.wait(timeout=30)

    # --- SQL and URLs ----------------------------------------------------------------------

    def admin(self, *statements: str, database: str = "postgres") -> list[Sequence[Any]]:
        """Run statements as the superuser (over the private socket); the last one's rows."""
        rows: list[Sequence[Any]] = []
        with psycopg.connect(
            host=str(self.root), port=self.port, user=SUPERUSER, dbname=database, autocommit=True
        ) as c:
            for statement in statements:
                cursor = c.execute(statement.encode())
                rows = list(cursor.fetchall()) if cursor.description else []
        return rows

    def url(self, database: str, user: str = ROLE, password: str | None = None) -> str:
        """What a user writes: postgresql://user:password@127.0.0.1:port/database."""
        secret = self.password if password is None else password
        return f"postgresql://{user}:{secret}@127.0.0.1:{self.port}/{database}"

    def create_role(self, name: str = ROLE) -> None:
        self.admin(f"CREATE ROLE {name} LOGIN PASSWORD '{self.password}'")

    def create_database(self, name: str, owner: str = ROLE) -> str:
        """A new empty database owned by `owner`; its URL."""
        self.admin(f"CREATE DATABASE {name} OWNER {owner}")
        return self.url(name, owner)
