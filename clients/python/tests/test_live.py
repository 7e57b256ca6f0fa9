"""The Python client against a running worker (``npm run dev -- --fake-llm --var MIN_REFRESH_INTERVAL_MINUTES=0
--var DATABASE_QUERY_TIMEOUT_MS=30000``: past the default 4 s deadline on a loaded machine, a 503 whose write still
committed makes the retried items "unchanged", not "created").

Needs UNIFIED_MEMORY_URL, UNIFIED_MEMORY_TEST_SECRET (the worker's HS256 secret, to sign a token per test
user) and UNIFIED_MEMORY_FAKE_LLM_URL (to make one user's runs fail); test/node/clients.test.ts sets them.
Every test has users of its own, so they do not depend on each other's order.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import time
import unittest
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Dict, List, Optional, Sequence, TypeVar

from unified_memory import AsyncClient, Client, UnifiedMemoryError

URL = os.environ.get("UNIFIED_MEMORY_URL", "")
SECRET = os.environ.get("UNIFIED_MEMORY_TEST_SECRET", "")
FAKE_LLM = os.environ.get("UNIFIED_MEMORY_FAKE_LLM_URL", "")
ALL_SCOPES = ("memory:read", "items:write", "admin")
T = TypeVar("T")


def token(user: str, scopes: Sequence[str] = ALL_SCOPES) -> str:
    """An HS256 token as the worker's dev tokens are signed (scripts/lib/token.ts)."""

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")

    now = int(time.time())
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64(json.dumps({"sub": user, "scope": " ".join(scopes), "iat": now, "exp": now + 3600}).encode())
    signature = hmac.new(SECRET.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{b64(signature)}"


def client(user: str, scopes: Sequence[str] = ALL_SCOPES) -> Client:
    return Client(URL, token(user, scopes))


def note(external_id: str, body: str, **extra: Any) -> Dict[str, Any]:
    return {"source": "notes", "externalId": external_id, "kind": "note", "body": body, "occurredAt": "2026-11-20T10:00:00Z", **extra}


def eventually(check: Callable[[], Optional[T]], within: float = 60.0) -> T:
    """Polls ``check`` every 0.25 s until it answers something truthy, for at most ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within} s")
        time.sleep(0.25)


def fail_runs_of(user: str) -> None:
    """Makes every LLM request of the user's runs fail with a 500 (the fake LLM's control API)."""
    digest = hashlib.sha256(f"unified-memory:subject:{user}".encode()).hexdigest()[:40]
    spec = {"match": f"sha256-{digest}", "fault": {"kind": "server_error", "status": 500}, "times": 50}
    request = urllib.request.Request(
        f"{FAKE_LLM}/__control/faults", data=json.dumps(spec).encode(), headers={"content-type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201


@unittest.skipUnless(URL and SECRET and FAKE_LLM, "needs UNIFIED_MEMORY_URL, UNIFIED_MEMORY_TEST_SECRET and UNIFIED_MEMORY_FAKE_LLM_URL")
class Live(unittest.TestCase):
    def test_ingests_and_searches_with_every_filter_across_pages(self) -> None:
        c = client("py-search")
        result = c.items.upsert(
            [
                note("m1", "The Kestrel cut-over moves to 3 March.", source="mail", kind="email", title="Kestrel cut-over plan", author="Ada Lovelace <ada@example.com>", participants=["Ben Castillo"], occurredAt="2026-02-10T09:00:00Z"),
                note("c1", "Kestrel stand-up notes", source="chat", kind="message", author="Ben Castillo", occurredAt="2026-02-20T09:00:00Z"),
                note("d1", "Kestrel architecture and its risks", source="docs", kind="doc", author="Chloe Dubois", occurredAt="2026-03-05T09:00:00Z"),
                note("n1", "Groceries for the weekend", occurredAt="2026-02-15T09:00:00Z"),
            ]
        )
        self.assertEqual((result.created, result.failed, result.requests), (4, 0, 1))

        def ids(**filters: Any) -> List[str]:
            return sorted(hit["externalId"] for hit in c.items.search(**filters))

        # Keyword mode, stated: a hybrid search would also find n1 by meaning once the queue has embedded it.
        self.assertEqual(ids(q="kestrel", mode="keyword"), ["c1", "d1", "m1"])
        self.assertEqual(ids(q="kestrel", kind=["email", "doc"]), ["d1", "m1"])
        self.assertEqual(ids(since="2026-02-15", until="2026-03-01T00:00:00Z"), ["c1", "n1"])
        self.assertEqual(ids(people="Ben Castillo"), ["c1", "m1"])
        self.assertEqual([len(page["items"]) for page in c.items.search(q="kestrel", mode="keyword", limit=1).pages()], [1, 1, 1])
        first = result.items[0]
        assert first.id is not None
        self.assertEqual(c.items.get(first.id)["participants"], ["Ben Castillo"])
        self.assertEqual(c.items.upsert([note("n1", "Groceries for the weekend", occurredAt="2026-02-15T09:00:00Z")]).unchanged, 1)

    def test_reads_a_memory_through_its_202_then_gets_not_modified(self) -> None:
        c = client("py-memory")
        self.assertEqual(c.memory.get()["status"], "empty")
        c.items.upsert([note("p1", "Ada leads the payments migration; the cut-over is on 3 March.")])
        self.assertEqual(c.memory.get()["status"], "generating")
        ready = c.memory.get(wait=60)
        self.assertEqual(ready["status"], "ready")
        etag = ready.get("etag", "")
        self.assertIn("[1]", ready.get("memory", ""))
        self.assertEqual(c.memory.get(if_none_match=etag), {"status": "not_modified", "etag": etag})
        self.assertTrue(c.memory.get(format="json").get("statements"))

    def test_iterates_versions_and_runs_across_pages(self) -> None:
        c = client("py-history")
        c.items.upsert([note("h1", "The Kestrel launch review is on Friday.")])
        self.assertEqual(c.memory.get(wait=60)["status"], "ready")
        c.items.upsert([note("h2", "Ben owns the Kestrel rollback runbook.")])
        self.assertIn(c.memory.refresh()["status"], ("scheduled", "running"))
        eventually(lambda: len(c.memory.versions().to_list()) >= 2)
        pages = [[v["id"] for v in page["versions"]] for page in c.memory.versions(limit=1).pages()]
        self.assertGreaterEqual(len(pages), 2)
        self.assertTrue(all(len(ids) == 1 for ids in pages))
        self.assertEqual(len({i for ids in pages for i in ids}), len(pages))
        runs = list(c.memory.runs(limit=1))
        self.assertGreaterEqual(sum(1 for r in runs if r["status"] == "succeeded"), 2)
        self.assertIn("Kestrel", c.memory.version(pages[0][0])["markdown"])

    def test_is_refused_a_refresh_during_a_backoff_with_429_and_retry_after(self) -> None:
        fail_runs_of("py-backoff")
        c = client("py-backoff")
        c.items.upsert([note("b1", "Anything at all")])
        # The ingest may already have started the run, and the failing LLM may have failed it by now.
        try:
            status = c.memory.get()["status"]
        except UnifiedMemoryError as failing:
            status = failing.code
        self.assertIn(status, ("generating", "generation_failing"))
        eventually(lambda: any(r["status"] == "failed" for r in c.memory.runs()))
        with self.assertRaises(UnifiedMemoryError) as caught:
            c.memory.refresh()
        error = caught.exception
        self.assertEqual((error.code, error.status), ("rate_limited", 429))
        self.assertGreater(error.retry_after or 0, 0)
        self.assertTrue(error.request_id)

    def test_reads_a_team_memory_as_a_member_and_anyone_else_gets_not_found(self) -> None:
        lead = client("py-lead")
        lead.members.add("py-mate")
        lead.members.add("py-outsider")
        self.assertEqual(lead.teams.put("py-team", "Python team", ["py-lead", "py-mate"])["members"], ["py-lead", "py-mate"])
        shared = lead.items.upsert([note("t1", "The Python team ships the importer on Tuesday.", sharedWith=["team:py-team"])])
        memory = client("py-mate").teams.memory("py-team").get(wait=60)
        self.assertEqual(memory["status"], "ready")
        self.assertIn(shared.items[0].id, [c["id"] for c in memory.get("citations", [])])
        with self.assertRaises(UnifiedMemoryError) as caught:
            client("py-outsider").teams.memory("py-team").get()
        self.assertEqual((caught.exception.code, caught.exception.status), ("not_found", 404))

    def test_splits_on_413_and_reports_a_422s_details_per_item(self) -> None:
        c = client("py-limits")
        split = c.items.upsert([note(f"x{i}", f"item {i}") for i in range(600)], max_batch_items=1000)
        self.assertEqual((split.created, split.failed, split.requests), (600, 0, 3))
        mixed = c.items.upsert([note("ok-1", "fine"), {**note("bad", "wrong kind"), "kind": "bogus"}, note("ok-2", "fine too", sharedWith=["nobody-here"]), note("ok-3", "fine as well")])
        self.assertEqual((mixed.created, mixed.failed), (2, 2))
        bad, unknown = mixed.items[1], mixed.items[2]
        assert bad.error is not None
        self.assertEqual((bad.ok, bad.error.code, bad.error.status, bad.problems[0].path), (False, "validation_failed", 422, "kind"))
        self.assertEqual(unknown.problems[0].path, "sharedWith")

    def test_raises_errors_that_carry_their_code_status_and_request_id(self) -> None:
        c = client("py-errors")
        cases = [
            (lambda: c.items.get(str(uuid.uuid4())), "not_found", 404),
            (lambda: Client(URL, "not-a-jwt").memory.get(), "unauthorized", 401),
            (lambda: c.items.search(since="last tuesday").to_list(), "bad_request", 400),
            (lambda: client("py-errors", ["memory:read"]).items.delete(str(uuid.uuid4())), "forbidden", 403),
            (lambda: c.memory.version(str(uuid.uuid4())), "not_found", 404),
        ]
        for call, code, status in cases:
            with self.assertRaises(UnifiedMemoryError) as caught:
                call()
            self.assertEqual((caught.exception.code, caught.exception.status), (code, status))
            self.assertTrue(caught.exception.request_id)

    def test_the_async_client_reads_and_iterates(self) -> None:
        async def main() -> Any:
            c = AsyncClient(URL, token("py-async"))
            await c.items.upsert(
                [
                    note("a1", "Dev leads the Kestrel data migration; the dry run is on 12 March."),
                    note("a2", "Kestrel's cut-over needs sign-off from the finance team by 20 March."),
                ]
            )
            hits = [hit["externalId"] async for hit in c.items.search(q="kestrel", limit=1)]
            return sorted(hits), (await c.memory.get(wait=60))["status"]

        self.assertEqual(asyncio.run(main()), (["a1", "a2"], "ready"))

    def test_reads_the_audit_trail_and_usage_and_an_admin_reads_the_workspaces(self) -> None:
        since = datetime.now(timezone.utc) - timedelta(minutes=1)
        c = client("py-audit")
        ingested = c.items.upsert([note("a1", "The Kestrel audit note.")])
        id = ingested.items[0].id or ""
        c.items.get(id)
        read = eventually(lambda: next((e for e in c.me.audit(action="item.read", since=since) if id in e["itemIds"]), None))
        self.assertEqual((read["actor"], read["subject"], read["channel"], read["status"]), ("py-audit", "py-audit", "http", 200))
        usage = c.me.usage(since=since, until=datetime.now(timezone.utc))
        self.assertEqual(usage["until"], datetime.now(timezone.utc).date().isoformat())
        self.assertIsInstance(usage["days"], list)

        self.assertIn(read["id"], [e["id"] for e in c.audit.list(subject="py-audit", action="item.read", since=since)])
        self.assertIn(read["id"], [e["id"] for e in c.audit.export(subject="py-audit", since=since)])
        ledger = c.usage.list(sort="subject")
        self.assertEqual(ledger["sort"], "subject")
        self.assertIsInstance(ledger["subjects"], list)
        with self.assertRaises(UnifiedMemoryError) as caught:
            client("py-audit", ["memory:read"]).audit.list().to_list()
        self.assertEqual((caught.exception.code, caught.exception.status), ("forbidden", 403))

    def test_manages_the_workspaces_webhooks_as_an_admin_and_a_member_gets_403(self) -> None:
        c = client(f"py-hooks-{uuid.uuid4().hex[:8]}")
        created = c.webhooks.create("https://hooks.example.com/py-client", ["memory.updated"], description="the Python client's")
        self.assertTrue(created["secret"].startswith("whsec_"))
        try:
            listed = c.webhooks.list()
            self.assertIn(created["id"], [w["id"] for w in listed["webhooks"]])
            self.assertNotIn(created["secret"], json.dumps(listed))
            self.assertFalse(c.webhooks.update(created["id"], enabled=False)["enabled"])
            self.assertTrue(c.webhooks.update(created["id"], enabled=True)["enabled"])
            self.assertNotEqual(c.webhooks.rotate_secret(created["id"])["secret"], created["secret"])
            c.webhooks.test(created["id"])
            deliveries = eventually(lambda: c.webhooks.deliveries(created["id"])["deliveries"])
            self.assertEqual(deliveries[0]["eventType"], "webhook.test")
            with self.assertRaises(UnifiedMemoryError) as caught:
                client("py-hooks-member", ["memory:read", "items:write"]).webhooks.list()
            self.assertEqual((caught.exception.code, caught.exception.status), ("forbidden", 403))
        finally:
            c.webhooks.delete(created["id"])
        with self.assertRaises(UnifiedMemoryError) as missing:
            c.webhooks.get(created["id"])
        self.assertEqual(missing.exception.code, "not_found")

    def test_erases_everything_of_the_caller(self) -> None:
        c = client("py-erase")
        c.items.upsert([note("e1", "Soon gone")])
        c.me.erase()
        self.assertEqual(c.items.search().to_list(), [])
        self.assertEqual(c.memory.get()["status"], "empty")


if __name__ == "__main__":
    unittest.main()
