#!/usr/bin/env python3
"""Import and export at scale (issue 56): writes N synthetic accounts in the migration format (each with one P-256
passkey, its COSE key made as Tests/e2e/softauthn.py makes them), imports them into a fresh SQLite store with
`latchkey import`, exports them with `latchkey export`, and prints the wall and CPU time and peak memory of each.

Usage: scripts/benchmark_migration.py [--accounts N] [--binary .build/release/latchkey]"""

from __future__ import annotations

import argparse
import base64
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "Tests" / "e2e"))
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from softauthn import cose_ec2_public_key  # noqa: E402


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def write_accounts(path: Path, count: int) -> None:
    keys = [cose_ec2_public_key(ec.generate_private_key(ec.SECP256R1()).public_key()) for _ in range(min(count, 500))]
    with path.open("w") as out:
        for index in range(count):
            out.write(json.dumps({
                "format": "latchkey-account-v1", "username": f"bulk-{index:07d}", "displayName": f"Bulk {index}",
                "userHandle": b64(os.urandom(32)), "createdAt": "2025-01-01T00:00:00.000Z", "disabled": False, "groups": [],
                "passkeys": [{
                    "credentialId": b64(os.urandom(32)), "publicKey": b64(keys[index % len(keys)]), "algorithm": -7, "signCount": 0,
                    "transports": ["internal"], "aaguid": "00000000-0000-0000-0000-000000000000", "backupEligible": True,
                    "backedUp": True, "userVerified": True, "attestationFormat": "none", "createdAt": "2025-01-01T00:00:00.000Z",
                }],
            }, separators=(",", ":")) + "\n")


def timed(command: list[str], env: dict, stdout) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (KiB) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(command, env=env, stdout=stdout, stderr=subprocess.PIPE, check=True, cwd=REPO)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=20_000)
    parser.add_argument("--binary", default=str(REPO / ".build" / "release" / "latchkey"))
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        lines = work / "accounts.jsonl"
        write_accounts(lines, arguments.accounts)
        env = {**os.environ, "LATCHKEY_HOME": str(REPO), "LATCHKEY_DATABASE": str(work / "store.sqlite"), "LATCHKEY_RP_ID": "localhost",
               "LATCHKEY_ORIGINS": "http://localhost:8080"}
        # `serve` makes the store; it is stopped once it listens.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen([arguments.binary, "serve"], env={**env, "LATCHKEY_HOST": "127.0.0.1", "LATCHKEY_PORT": str(port)}, cwd=REPO,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for line in server.stderr:
            if "listening" in line:
                break
        server.terminate()
        server.wait()
        with open(os.devnull, "w") as sink:
            imported = timed([arguments.binary, "import", str(lines)], env, sink)
            exported = timed([arguments.binary, "export"], env, sink)
    for name, (wall, cpu, rss) in (("import", imported), ("export", exported)):
        print(f"{name}: {arguments.accounts} accounts, {wall:.1f} s wall, {cpu:.1f} s CPU, {arguments.accounts / wall:.0f} a second, "
              f"peak RSS of the runs so far {rss / 1024:.0f} MiB")
    print(f"RESULT accounts={arguments.accounts} import_wall={imported[0]:.2f} export_wall={exported[0]:.2f}")


if __name__ == "__main__":
    main()
