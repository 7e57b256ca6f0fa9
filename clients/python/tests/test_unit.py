"""The Python client against a scripted local server: retries and their bounds, Retry-After, errors,
batching within the limits, 413 splits, 422 isolation, cursors and GET /memory's 202 waits. The waits
are recorded, never slept."""

from __future__ import annotations

import asyncio
import json
import socket
import traceback
import unittest
from datetime import date, datetime, timezone
from typing import Any, List

from unified_memory import MAX_BATCH_BYTES, AsyncClient, Client, UnifiedMemoryError

from .fake_api import Call, FakeApi, api_error, store_all


def note(n: int, body: str = "") -> dict:
    return {"source": "notes", "externalId": f"n{n}", "kind": "note", "body": body or f"note {n}", "occurredAt": "2026-11-20T10:00:00Z"}


class ClientCase(unittest.TestCase):
    def client(self, api: FakeApi, retries: int = 3, **options: Any) -> Client:
        self.waits: List[float] = []
        return Client(api.url, "t0k", retries=retries, sleep=self.waits.append, **options)


class Requests(ClientCase):
    def test_sends_the_bearer_token_to_the_base_path_and_asks_get_token_before_every_attempt(self) -> None:
        tokens = iter(["tok-1", "tok-2"])
        with FakeApi([api_error(503, "database_unavailable", {"Retry-After": "0"}), (200, {"teams": []}, {})]) as api:
            Client(api.url, get_token=lambda: next(tokens), sleep=lambda s: None).teams.list()
            self.assertEqual([(c.path, c.headers["authorization"]) for c in api.calls], [("/base/teams", "Bearer tok-1"), ("/base/teams", "Bearer tok-2")])

    def test_retries_429_502_503_504_after_retry_after_then_answers(self) -> None:
        script = [
            api_error(429, "rate_limited", {"Retry-After": "2"}),
            (502, b"bad gateway", {}),
            api_error(503, "database_unavailable", {"Retry-After": "5"}),
            api_error(504, "gateway_timeout", {"Retry-After": "1"}),
            (200, {"teams": []}, {}),
        ]
        with FakeApi(script) as api:
            client = self.client(api, retries=4)
            self.assertEqual(client.teams.list(), {"teams": []})
        self.assertEqual(self.waits[0], 2)
        self.assertTrue(0.25 <= self.waits[1] <= 0.5, self.waits)  # no Retry-After: backoff with jitter
        self.assertEqual(self.waits[2:], [5, 1])

    def test_gives_up_after_the_retries_with_code_status_request_id_and_retry_after(self) -> None:
        with FakeApi(lambda call: api_error(503, "database_unavailable", {"Retry-After": "1"})) as api:
            with self.assertRaises(UnifiedMemoryError) as caught:
                self.client(api, retries=2).items.get("x")
            self.assertEqual(len(api.calls), 3)
        error = caught.exception
        self.assertEqual((error.code, error.status, error.request_id, error.retry_after), ("database_unavailable", 503, "req-503", 1.0))
        self.assertEqual(self.waits, [1.0, 1.0])

    def test_does_not_retry_what_retrying_cannot_change(self) -> None:
        cases = [
            (api_error(404, "not_found"), lambda c: c.items.get("x")),
            (api_error(503, "llm_not_configured"), lambda c: c.memory.get()),
            (api_error(429, "rate_limited", {"Retry-After": "30"}), lambda c: c.memory.refresh()),
            (api_error(503, "database_unavailable", {"Retry-After": "3600"}), lambda c: c.teams.list()),
        ]
        for answer, call in cases:
            with FakeApi([answer]) as api:
                with self.assertRaises(UnifiedMemoryError) as caught:
                    call(self.client(api))
                self.assertEqual(len(api.calls), 1, caught.exception.code)

    def test_reports_an_unreachable_server_as_network_error_after_the_retries(self) -> None:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        waits: List[float] = []
        client = Client(f"http://127.0.0.1:{port}", "t", retries=2, sleep=waits.append)
        with self.assertRaises(UnifiedMemoryError) as caught:
            client.items.get("x")
        self.assertEqual((caught.exception.code, caught.exception.status), ("network_error", 0))
        self.assertEqual(len(waits), 2)


class Upsert(ClientCase):
    def test_splits_1200_items_into_requests_of_at_most_500_and_reports_every_item_in_order(self) -> None:
        with FakeApi(store_all) as api:
            result = self.client(api).items.upsert([note(i) for i in range(1200)])
            self.assertEqual([len(c.json()["items"]) for c in api.calls], [500, 500, 200])
        self.assertEqual((result.created, result.failed, result.requests), (1200, 0, 3))
        self.assertEqual([r.index for r in result.items], list(range(1200)))
        self.assertEqual((result.items[700].external_id, result.items[700].status), ("n700", "created"))

    def test_keeps_every_request_within_5_mb_and_fails_alone_an_item_that_fits_in_none(self) -> None:
        big = "x" * (2 * 1024 * 1024)
        with FakeApi(store_all) as api:
            result = self.client(api).items.upsert([note(0, big), note(1, big), note(2, big), note(3, "x" * MAX_BATCH_BYTES)])
            sizes = [len(c.body) for c in api.calls]
        self.assertEqual(len(sizes), 2)
        self.assertTrue(all(size <= MAX_BATCH_BYTES for size in sizes), sizes)
        self.assertEqual(result.created, 3)
        failed = result.items[3]
        self.assertFalse(failed.ok)
        assert failed.error is not None
        self.assertEqual((failed.error.code, failed.error.status), ("payload_too_large", 413))

    def test_splits_a_request_refused_as_too_large_until_the_halves_fit(self) -> None:
        def answer(call: Call):
            return api_error(413, "payload_too_large") if len(call.json()["items"]) > 3 else store_all(call)

        with FakeApi(answer) as api:
            result = self.client(api).items.upsert([note(i) for i in range(10)])
            self.assertEqual([len(c.json()["items"]) for c in api.calls], [10, 5, 3, 2, 5, 3, 2])
        self.assertEqual((result.created, result.failed, result.requests), (10, 0, 7))

    def test_fails_the_items_a_422_names_with_their_problems_and_sends_the_rest_again(self) -> None:
        details = {"items": [{"index": 1, "path": "kind", "message": "Invalid option"}]}
        script: list = [api_error(422, "validation_failed", details=details), store_all]
        with FakeApi(lambda call: script.pop(0)(call) if callable(script[0]) else script.pop(0)) as api:
            result = self.client(api).items.upsert([note(0), note(1), note(2)])
            self.assertEqual([i["externalId"] for i in api.calls[1].json()["items"]], ["n0", "n2"])
        self.assertEqual((result.created, result.failed, result.requests), (2, 1, 2))
        refused = result.items[1]
        assert refused.error is not None
        self.assertEqual((refused.ok, refused.external_id, refused.error.code), (False, "n1", "validation_failed"))
        self.assertEqual([(p.path, p.message) for p in refused.problems], [("kind", "Invalid option")])

    def test_raises_on_a_refused_token_after_reporting_the_batches_already_sent(self) -> None:
        script: list = [store_all, api_error(401, "unauthorized")]
        reported: List[int] = []
        with FakeApi(lambda call: script.pop(0)(call) if callable(script[0]) else script.pop(0)) as api:
            with self.assertRaises(UnifiedMemoryError) as caught:
                self.client(api).items.upsert([note(i) for i in range(600)], on_batch=lambda done: reported.append(len(done)))
        self.assertEqual((caught.exception.code, caught.exception.status), ("unauthorized", 401))
        self.assertEqual(reported, [500])


class Cursors(ClientCase):
    def test_iterates_a_search_across_pages_with_every_filter_in_the_query(self) -> None:
        def hit(id: str) -> dict:
            return {"id": id, "kind": "note", "source": "s", "externalId": id, "title": None, "author": None, "occurredAt": "2026-01-01T00:00:00.000Z", "snippet": "", "rank": 1}

        script = [(200, {"items": [hit("a"), hit("b")], "nextCursor": "c1"}, {}), (200, {"items": [hit("c")], "nextCursor": None}, {})]
        with FakeApi(script) as api:
            search = self.client(api).items.search(q="cut-over", kind=["email", "note"], since=datetime(2026, 1, 1), until="2026-02-01", people="Ada", limit=2)
            self.assertEqual([h["id"] for h in search], ["a", "b", "c"])
            first, second = api.calls[0].query, api.calls[1].query
        self.assertEqual(first, {"q": ["cut-over"], "kind": ["email", "note"], "since": ["2026-01-01T00:00:00+00:00"], "until": ["2026-02-01"], "people": ["Ada"], "limit": ["2"]})
        self.assertEqual(second["cursor"], ["c1"])

    def test_stops_with_an_error_when_the_server_repeats_a_cursor(self) -> None:
        with FakeApi(lambda call: (200, {"runs": [], "nextCursor": "same"}, {})) as api:
            with self.assertRaises(UnifiedMemoryError) as caught:
                self.client(api).memory.runs().to_list()
            self.assertEqual(len(api.calls), 2)
        self.assertEqual(caught.exception.code, "invalid_response")


class MemoryGet(ClientCase):
    READY = {"memory": "- fact [1]", "version": "v1", "generatedAt": "2026-01-01T00:00:00.000Z", "stale": False, "citations": []}

    def test_waits_through_202s_honouring_retry_after_and_asks_the_api_to_hold_each_request(self) -> None:
        script = [(202, {"status": "generating", "retryAfter": 3}, {"Retry-After": "3"}), (200, self.READY, {"ETag": '"v1"'})]
        with FakeApi(script) as api:
            result = self.client(api).memory.get(wait=45, format="json")
            self.assertEqual((api.calls[0].query["wait"], api.calls[0].query["format"]), (["30"], ["json"]))
        self.assertEqual((result["status"], result.get("etag"), result.get("memory")), ("ready", '"v1"', "- fact [1]"))
        self.assertEqual(self.waits, [3.0])

    def test_answers_generating_when_the_wait_is_over_after_a_bounded_number_of_requests(self) -> None:
        with FakeApi(lambda call: (202, {"status": "generating", "retryAfter": 0}, {})) as api:
            self.assertEqual(self.client(api).memory.get(wait=3), {"status": "generating", "retryAfter": 0})
            self.assertLessEqual(len(api.calls), 4)

    def test_sends_if_none_match_and_answers_not_modified_and_a_team_has_its_own_path(self) -> None:
        with FakeApi([(304, b"", {"ETag": '"v1"'})]) as api:
            result = self.client(api).teams.memory("pay ments").get(if_none_match='"v1"')
            self.assertEqual((api.calls[0].path, api.calls[0].headers["if-none-match"]), ("/base/teams/pay%20ments/memory", '"v1"'))
        self.assertEqual(result, {"status": "not_modified", "etag": '"v1"'})

    def test_the_async_client_awaits_the_same_calls_and_iterates_cursors(self) -> None:
        script = [(200, self.READY, {"ETag": '"v1"'}), (200, {"versions": [{"id": "v1"}], "nextCursor": "c"}, {}), (200, {"versions": [{"id": "v0"}], "nextCursor": None}, {})]

        async def main(url: str) -> Any:
            client = AsyncClient(url, "t")
            memory = await client.memory.get()
            versions = [v["id"] async for v in client.memory.versions(limit=1)]
            return memory["status"], versions

        with FakeApi(script) as api:
            self.assertEqual(asyncio.run(main(api.url)), ("ready", ["v1", "v0"]))


def event(id: str, subject: str = "ada") -> dict:
    return {"id": id, "at": "2026-11-20T10:00:00.000Z", "workspaceId": "w", "actor": "ada", "subject": subject, "action": "memory.read", "channel": "http", "client": None, "requestId": "r", "version": None, "itemIds": [], "queryHash": None, "status": 200}


class AuditAndUsage(ClientCase):
    def test_me_audit_iterates_events_across_pages_with_its_filters_in_the_query(self) -> None:
        script = [(200, {"events": [event("e1"), event("e2")], "nextCursor": "c1"}, {}), (200, {"events": [event("e3")], "nextCursor": None}, {})]
        with FakeApi(script) as api:
            events = self.client(api).me.audit(action="item.read", since=datetime(2026, 11, 1), until="2026-12-01T00:00:00Z", limit=2)
            self.assertEqual([e["id"] for e in events], ["e1", "e2", "e3"])
            first, second = api.calls[0], api.calls[1]
        self.assertEqual((first.method, first.path, first.headers["authorization"]), ("GET", "/base/me/audit", "Bearer t0k"))
        self.assertEqual(first.query, {"action": ["item.read"], "since": ["2026-11-01T00:00:00+00:00"], "until": ["2026-12-01T00:00:00Z"], "limit": ["2"]})
        self.assertEqual(second.query["cursor"], ["c1"])

    def test_me_usage_sends_its_days_and_answers_the_ledger(self) -> None:
        ledger = {"since": "2026-11-01", "until": "2026-11-30", "days": []}
        with FakeApi([(200, ledger, {})]) as api:
            self.assertEqual(self.client(api).me.usage(since=date(2026, 11, 1), until=datetime(2026, 11, 30, 23, tzinfo=timezone.utc)), ledger)
            self.assertEqual((api.calls[0].path, api.calls[0].query), ("/base/me/usage", {"since": ["2026-11-01"], "until": ["2026-11-30"]}))

    def test_the_admin_audit_list_filters_by_actor_subject_and_action(self) -> None:
        with FakeApi([(200, {"events": [event("e1", "team:pay")], "nextCursor": None}, {})]) as api:
            events = self.client(api).audit.list(actor="bob", subject="team:pay", action="team.change").to_list()
            self.assertEqual([e["subject"] for e in events], ["team:pay"])
            self.assertEqual((api.calls[0].path, api.calls[0].query), ("/base/audit", {"actor": ["bob"], "subject": ["team:pay"], "action": ["team.change"]}))

    def test_the_admin_export_asks_for_ndjson_and_parses_every_line(self) -> None:
        body = ("\n".join(json.dumps(event(f"e{n}")) for n in range(3)) + "\n").encode("utf-8")
        with FakeApi([(200, body, {})]) as api:
            events = list(self.client(api).audit.export(subject="ada", since="2026-11-01T00:00:00Z"))
            call = api.calls[0]
        self.assertEqual([e["id"] for e in events], ["e0", "e1", "e2"])
        self.assertEqual((call.path, call.query), ("/base/audit", {"subject": ["ada"], "since": ["2026-11-01T00:00:00Z"], "format": ["ndjson"]}))
        self.assertEqual(call.headers["accept"], "application/x-ndjson")

    def test_the_admin_export_raises_invalid_response_on_a_line_that_is_not_json(self) -> None:
        with FakeApi([(200, json.dumps(event("e0")).encode("utf-8") + b"\n{oops\n", {})]) as api:
            events = self.client(api).audit.export()
            self.assertEqual(next(events)["id"], "e0")
            with self.assertRaises(UnifiedMemoryError) as caught:
                next(events)
        self.assertEqual(caught.exception.code, "invalid_response")
        self.assertIn("line 2", caught.exception.message)

    def test_the_admin_usage_sends_its_sort_and_a_member_without_admin_gets_insufficient_scope(self) -> None:
        ledger = {"since": "2026-11-01", "until": "2026-11-30", "sort": "tokens", "subjects": []}
        with FakeApi([(200, ledger, {}), api_error(403, "insufficient_scope")]) as api:
            client = self.client(api)
            self.assertEqual(client.usage.list(since="2026-11-01", sort="tokens"), ledger)
            self.assertEqual((api.calls[0].path, api.calls[0].query), ("/base/usage", {"since": ["2026-11-01"], "sort": ["tokens"]}))
            with self.assertRaises(UnifiedMemoryError) as caught:
                client.audit.list().to_list()
        self.assertEqual((caught.exception.code, caught.exception.status, caught.exception.request_id), ("insufficient_scope", 403, "req-403"))

    def test_the_async_client_iterates_the_audit_and_the_export_and_awaits_usage(self) -> None:
        script = [
            (200, {"events": [event("e1")], "nextCursor": None}, {}),
            (200, (json.dumps(event("x1")) + "\n").encode("utf-8"), {}),
            (200, {"since": "a", "until": "b", "days": []}, {}),
            (200, {"since": "a", "until": "b", "sort": "cost", "subjects": []}, {}),
        ]

        async def main(url: str) -> Any:
            client = AsyncClient(url, "t")
            mine = [e["id"] async for e in client.me.audit(since="2026-11-01")]
            exported = [e["id"] async for e in client.audit.export()]
            days = (await client.me.usage(since="2026-11-01"))["days"]
            subjects = (await client.usage.list(sort="cost"))["subjects"]
            return mine, exported, days, subjects

        with FakeApi(script) as api:
            self.assertEqual(asyncio.run(main(api.url)), (["e1"], ["x1"], [], []))
            self.assertEqual([c.path for c in api.calls], ["/base/me/audit", "/base/audit", "/base/me/usage", "/base/usage"])


class MemoryCorrection(ClientCase):
    DISMISSAL = {"id": "d1", "statementId": "s1", "text": "wrong", "section": "Facts", "citations": [], "reason": "moved", "at": "2026-11-20T10:00:00.000Z"}

    def test_dismisses_lists_and_withdraws_under_the_memory_and_a_team(self) -> None:
        script = [
            (201, {"dismissal": self.DISMISSAL, "version": "v2", "etag": '"v2"'}, {}),
            (200, {"dismissals": [self.DISMISSAL]}, {}),
            (204, b"", {}),
            (201, {"dismissal": self.DISMISSAL, "version": "v2", "etag": '"v2"'}, {}),
        ]
        with FakeApi(script) as api:
            client = self.client(api)
            self.assertEqual(client.memory.dismiss("s/1", reason="moved")["etag"], '"v2"')
            self.assertEqual(client.memory.dismissals(), [self.DISMISSAL])
            self.assertIsNone(client.memory.withdraw_dismissal("d1"))
            client.teams.memory("pay").dismiss("s1")
            calls = [(c.method, c.path) for c in api.calls]
            bodies = [api.calls[0].json(), api.calls[3].json()]
        self.assertEqual(calls, [("POST", "/base/memory/statements/s%2F1/dismiss"), ("GET", "/base/memory/dismissals"), ("DELETE", "/base/memory/dismissals/d1"), ("POST", "/base/teams/pay/memory/statements/s1/dismiss")])
        self.assertEqual(bodies, [{"reason": "moved"}, {}])

    def test_diffs_a_version_against_another_and_maps_not_found(self) -> None:
        diff = {"from": "v1", "to": "v2", "added": [], "removed": [], "kept": []}
        with FakeApi([(200, diff, {}), api_error(404, "not_found")]) as api:
            client = self.client(api)
            self.assertEqual(client.memory.diff("v2", against="v1"), diff)
            self.assertEqual((api.calls[0].path, api.calls[0].query), ("/base/memory/versions/v2/diff", {"against": ["v1"]}))
            with self.assertRaises(UnifiedMemoryError) as caught:
                client.memory.diff("nope")
        self.assertEqual((caught.exception.code, caught.exception.status), ("not_found", 404))

    def test_get_as_of_asks_for_the_past_version_without_waiting(self) -> None:
        past = {"memory": "- old", "version": "v1", "generatedAt": "x", "createdAt": "x", "asOf": "2026-11-01T00:00:00.000Z", "current": False, "citations": []}
        with FakeApi([(200, past, {}), api_error(404, "no_memory_at")]) as api:
            client = self.client(api)
            result = client.memory.get(as_of=datetime(2026, 11, 1), wait=30)
            self.assertEqual(api.calls[0].query, {"asOf": ["2026-11-01T00:00:00+00:00"]})
            with self.assertRaises(UnifiedMemoryError) as caught:
                client.memory.get(as_of="2020-01-01T00:00:00Z")
        self.assertEqual((result["status"], result.get("current")), ("past", False))
        self.assertEqual(caught.exception.code, "no_memory_at")


if __name__ == "__main__":
    unittest.main()


class Tokens(ClientCase):
    def test_trims_a_token_and_refuses_one_holding_cr_lf_or_nul_without_quoting_it(self) -> None:
        with FakeApi([(200, {"teams": []}, {})]) as api:
            Client(api.url, "  abc.def.ghi\n", sleep=lambda s: None).teams.list()
            self.assertEqual(api.calls[0].headers["authorization"], "Bearer abc.def.ghi")
        for token in ["eyJsecret.part\nwrapped", "eyJsecret\r.x", "eyJsecret\x00x"]:
            with self.assertRaises(ValueError) as caught:
                Client("http://127.0.0.1:9", token)
            error = caught.exception
            self.assertIn("CR, LF or NUL", str(error))
            for text in (str(error), repr(error), "".join(traceback.format_exception(type(error), error, error.__traceback__))):
                self.assertNotIn("eyJsecret", text)
            self.assertIsNone(error.__cause__)
            self.assertTrue(error.__suppress_context__ or error.__context__ is None)

    def test_a_get_token_is_checked_each_time_and_nothing_is_sent_with_a_bad_one(self) -> None:
        with FakeApi([(200, {"teams": []}, {})]) as api:
            client = Client(api.url, get_token=lambda: "eyJsecret\nx", sleep=lambda s: None)
            with self.assertRaises(ValueError) as caught:
                client.teams.list()
            self.assertEqual(api.calls, [])
        self.assertNotIn("eyJsecret", repr(caught.exception))

    def test_the_async_client_refuses_the_same_token(self) -> None:
        with self.assertRaises(ValueError) as caught:
            AsyncClient("http://127.0.0.1:9", "eyJsecret\nx")
        self.assertNotIn("eyJsecret", str(caught.exception))


class NonIdempotentWrites(ClientCase):
    DISMISSED = (201, {"dismissal": MemoryCorrection.DISMISSAL, "version": "v2", "etag": '"v2"'}, {})

    def test_a_dismissal_or_a_delete_that_may_have_committed_is_not_sent_again(self) -> None:
        cases = [
            ([api_error(503, "database_unavailable", {"Retry-After": "0"}), self.DISMISSED], lambda c: c.memory.dismiss("s1")),
            ([api_error(504, "timeout", {"Retry-After": "0"}), (204, b"", {})], lambda c: c.items.delete("i1")),
        ]
        for script, call in cases:
            with FakeApi(script) as api:
                with self.assertRaises(UnifiedMemoryError):
                    call(self.client(api))
                self.assertEqual(len(api.calls), 1)

    def test_a_429_is_not_processed_so_a_dismissal_is_tried_again(self) -> None:
        with FakeApi([api_error(429, "rate_limited", {"Retry-After": "1"}), self.DISMISSED]) as api:
            self.assertEqual(self.client(api).memory.dismiss("s1")["etag"], '"v2"')
            self.assertEqual(len(api.calls), 2)

    def test_the_async_client_does_not_resend_a_dismissal_after_a_503(self) -> None:
        with FakeApi([api_error(503, "database_unavailable", {"Retry-After": "0"}), self.DISMISSED]) as api:
            client = AsyncClient(api.url, "t0k", retries=3, sleep=lambda s: None)
            with self.assertRaises(UnifiedMemoryError):
                asyncio.run(client.memory.dismiss("s1"))
            self.assertEqual(len(api.calls), 1)


class WebhooksManagement(ClientCase):
    ENDPOINT = {
        "id": "0b4c5a3e-1d2f-4a6b-8c9d-0e1f2a3b4c5d",
        "url": "https://hooks.example.com/memory",
        "events": ["memory.updated"],
        "description": None,
        "enabled": True,
        "disabledReason": None,
        "failingSince": None,
        "createdAt": "2026-12-01T00:00:00.000Z",
        "updatedAt": "2026-12-01T00:00:00.000Z",
    }

    def test_registers_lists_changes_rotates_tests_reads_deliveries_and_removes_an_endpoint(self) -> None:
        id = self.ENDPOINT["id"]
        script = [
            (201, {**self.ENDPOINT, "secret": "whsec_c2VjcmV0"}, {}),
            (200, {"webhooks": [self.ENDPOINT]}, {}),
            (200, self.ENDPOINT, {}),
            (200, {**self.ENDPOINT, "enabled": False}, {}),
            (200, {"secret": "whsec_bmV3", "previousSecretValidUntil": "2026-12-02T00:00:00.000Z"}, {}),
            (202, {"queued": True}, {}),
            (200, {"deliveries": []}, {}),
            (204, b"", {}),
        ]
        with FakeApi(script) as api:
            client = self.client(api)
            created = client.webhooks.create(self.ENDPOINT["url"], ["memory.updated"], description="the bot")
            self.assertEqual(created["secret"], "whsec_c2VjcmV0")
            self.assertEqual(client.webhooks.list()["webhooks"], [self.ENDPOINT])
            self.assertEqual(client.webhooks.get(id), self.ENDPOINT)
            self.assertFalse(client.webhooks.update(id, enabled=False)["enabled"])
            self.assertEqual(client.webhooks.rotate_secret(id)["secret"], "whsec_bmV3")
            self.assertIsNone(client.webhooks.test(id))
            self.assertEqual(client.webhooks.deliveries(id), {"deliveries": []})
            self.assertIsNone(client.webhooks.delete(id))
            calls = [(c.method, c.path) for c in api.calls]
            bodies = [api.calls[0].json(), api.calls[3].json()]
        self.assertEqual(
            calls,
            [
                ("POST", "/base/webhooks"),
                ("GET", "/base/webhooks"),
                ("GET", f"/base/webhooks/{id}"),
                ("PATCH", f"/base/webhooks/{id}"),
                ("POST", f"/base/webhooks/{id}/rotate-secret"),
                ("POST", f"/base/webhooks/{id}/test"),
                ("GET", f"/base/webhooks/{id}/deliveries"),
                ("DELETE", f"/base/webhooks/{id}"),
            ],
        )
        self.assertEqual(bodies, [{"url": self.ENDPOINT["url"], "events": ["memory.updated"], "description": "the bot"}, {"enabled": False}])

    def test_a_refused_address_raises_bad_request_without_a_retry(self) -> None:
        with FakeApi([api_error(400, "bad_request")]) as api:
            with self.assertRaises(UnifiedMemoryError) as caught:
                self.client(api).webhooks.create("https://10.0.0.8/", ["memory.updated"])
            self.assertEqual(len(api.calls), 1)
        self.assertEqual((caught.exception.code, caught.exception.status), ("bad_request", 400))

    def test_the_async_client_awaits_the_same_calls(self) -> None:
        with FakeApi([(200, {"webhooks": []}, {}), (202, {"queued": True}, {})]) as api:
            client = AsyncClient(api.url, "t0k", retries=0, sleep=lambda s: None)

            async def calls() -> None:
                self.assertEqual(await client.webhooks.list(), {"webhooks": []})
                await client.webhooks.test("w1")

            asyncio.run(calls())
            self.assertEqual([(c.method, c.path) for c in api.calls], [("GET", "/base/webhooks"), ("POST", "/base/webhooks/w1/test")])
class ImportsUpload(ClientCase):
    def test_uploads_a_file_as_octet_stream_with_its_name_and_modification_time_then_waits_until_done(self) -> None:
        import os
        import tempfile

        summary = {"records": 2, "items": 2, "created": 2, "updated": 0, "unchanged": 0, "skipped": 0, "rejected": 0, "skippedReasons": {}, "errors": []}
        job = {"id": "11111111-1111-4111-8111-111111111111", "status": "queued", "summary": {**summary, "records": 0}}
        with FakeApi([(202, job, {}), (200, {**job, "status": "running"}, {}), (200, {**job, "status": "done", "summary": summary}, {})]) as api:
            client = self.client(api)
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "contacts.vcf")
                with open(path, "wb") as handle:
                    handle.write(b"BEGIN:VCARD\r\nEND:VCARD\r\n")
                os.utime(path, (1714564800, 1714564800))
                queued = client.imports.upload(path)
            seen: List[str] = []
            done = client.imports.wait(queued["id"], interval=0.5, on_progress=lambda j: seen.append(j["status"]))
            upload = api.calls[0]
            self.assertEqual((upload.method, upload.path, upload.headers["content-type"]), ("POST", "/base/imports", "application/octet-stream"))
            self.assertEqual(upload.query, {"name": ["contacts.vcf"], "modifiedAt": ["2024-05-01T12:00:00+00:00"]})
            self.assertEqual(upload.body, b"BEGIN:VCARD\r\nEND:VCARD\r\n")
            self.assertEqual((seen, done["summary"]["created"], self.waits), (["running", "done"], 2, [0.5]))
