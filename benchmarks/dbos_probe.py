"""`python -m benchmarks dbos-probe`: DBOS Transact's own queue overhead, on SQLite and on Postgres.

The issue's probe: 32 steps of 200 ms through one DBOS queue of concurrency 8 (ideal 0.8 s), at
DBOS's default 1 s queue polling and at 50 ms. Each configuration runs in a fresh process (DBOS is
one instance per process) and prints its wall time beside the ideal.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time

STEPS, SLEEP, CONCURRENCY = 32, 0.2, 8


def _child(url: str, polling: float) -> None:
    from dbos import DBOS

    # the notification listener's polling follows the queue's, so a result is not waited for longer
    DBOS(
        config={
            "name": "pallium-probe",
            "system_database_url": url,
            "run_admin_server": False,
            "notification_listener_polling_interval_sec": min(polling, 1.0),
        }
    )

    @DBOS.step()
    def nap(i: int) -> int:
        time.sleep(SLEEP)
        return i

    @DBOS.workflow()
    def one(i: int) -> int:
        return nap(i)

    DBOS.launch()
    queue = DBOS.register_queue("probe", worker_concurrency=CONCURRENCY, polling_interval_sec=polling)
    began = time.perf_counter()
    handles = [queue.enqueue(one, i) for i in range(STEPS)]
    results = [h.get_result() for h in handles]
    wall = time.perf_counter() - began
    assert sorted(results) == list(range(STEPS))
    print(json.dumps({"wall": wall}))
    DBOS.destroy()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        _child(argv[1], float(argv[2]))
        return 0
    from benchmarks.pgcluster import Cluster, available

    why = available()
    ideal = STEPS * SLEEP / CONCURRENCY
    rows = []
    with tempfile.TemporaryDirectory() as tmp, Cluster() as cluster:
        for n, (backend, polling) in enumerate(
            [("sqlite", 1.0), ("sqlite", 0.05), ("postgres", 1.0), ("postgres", 0.05), ("postgres", 0.01)]
        ):
            if backend == "postgres" and why:
                rows.append((backend, polling, None))
                continue
            url = f"sqlite:///{tmp}/probe{n}.sqlite" if backend == "sqlite" else cluster.create_database(f"probe{n}")
            url = url.replace("postgresql://", "postgresql+psycopg://")
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks", "dbos-probe", "--child", url, str(polling)],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            if done.returncode != 0:
                print(done.stderr[-3000:], file=sys.stderr)
                rows.append((backend, polling, None))
                continue
            rows.append((backend, polling, json.loads(done.stdout.strip().splitlines()[-1])["wall"]))
    print(f"{STEPS} steps x {SLEEP * 1000:.0f} ms, DBOS queue concurrency {CONCURRENCY}; ideal {ideal:.2f} s")
    print("| backend | queue polling | wall s | x ideal |")
    print("|---|---|---|---|")
    for backend, polling, wall in rows:
        shown = "failed" if wall is None else f"{wall:.2f} | {wall / ideal:.2f}"
        print(f"| {backend} | {polling * 1000:.0f} ms | {shown} |")
    return 0
