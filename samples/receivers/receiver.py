import base64
import hashlib
import hmac
import os
import re
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ["XTIMER_SIGNING_SECRET"]  # "whsec_…", from POST /api/v1/apps
KEY = base64.b64decode(SECRET.removeprefix("whsec_"), validate=True)
TOLERANCE_S = 5 * 60  # a signature further from now than this is refused: a replay
TASK_KEY = re.compile(r"([1-9][0-9]{0,15})_([0-9]{1,15})")
TRIGGERS = {"schedule", "manual", "retry", "backfill"}
done = set()  # use a table with a unique key on the task id in production


class BadCallback(Exception):
    pass


def verify_callback(headers, body: bytes) -> dict:
    """The run an xtimer call is for, as verifyCallback of xtimer/client returns it, or BadCallback:
    a Standard Webhooks signature (HMAC-SHA256 of "id.timestamp.body") and X-Xtimer-* headers
    that say what the signed task id says."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not (msg_id and timestamp and signatures):
        raise BadCallback("not signed")
    try:
        signed_at = int(timestamp)
    except ValueError:
        raise BadCallback("bad webhook-timestamp") from None
    now = int(time.time())
    if now - signed_at > TOLERANCE_S or signed_at > now + TOLERANCE_S:
        raise BadCallback("stale webhook-timestamp")
    mac = hmac.new(KEY, f"{msg_id}.{signed_at}.".encode() + body, hashlib.sha256)
    expected = base64.b64encode(mac.digest())
    # A secret being rotated out sends two signatures, space-separated: either will do.
    if not any(
        version == "v1" and hmac.compare_digest(signature.encode(), expected)
        for version, _, signature in (s.partition(",") for s in signatures.split(" "))
    ):
        raise BadCallback("no matching signature")
    key = TASK_KEY.fullmatch(msg_id)
    if not key:
        raise BadCallback("webhook-id is not an xtimer task id")
    timer_id, scheduled_at = key.groups()
    # The X-Xtimer-* headers are not signed: they must agree with the signed task id.
    for name, value in [
        ("x-xtimer-task-id", msg_id),
        ("x-xtimer-timer-id", timer_id),
        ("x-xtimer-scheduled-at", scheduled_at),
    ]:
        if headers.get(name, value) != value:
            raise BadCallback(f"{name} does not match the signed task id")
    attempt = headers.get("x-xtimer-attempt", "1")
    trigger = headers.get("x-xtimer-trigger", "schedule")
    if not re.fullmatch(r"[0-9]+", attempt) or int(attempt) < 1 or trigger not in TRIGGERS:
        raise BadCallback("bad x-xtimer-attempt or x-xtimer-trigger")
    return {
        "taskId": msg_id,
        "timerId": int(timer_id),
        "scheduledAt": int(scheduled_at),
        "attempt": int(attempt),
        "trigger": trigger,
    }


# The timer's callback.body as sent: none unless the timer sets one, and not always JSON.
def do_the_work(body: str, scheduled_at: int) -> None:
    at = datetime.fromtimestamp(scheduled_at / 1000, timezone.utc)
    print("run for", at.isoformat(timespec="milliseconds").replace("+00:00", "Z"), body or "(no body)", flush=True)


class Receiver(BaseHTTPRequestHandler):
    def answer(self, status: int, text: str) -> None:
        self.send_response(status)
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(len(text)))
        self.end_headers()
        self.wfile.write(text.encode())

    def call(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            run = verify_callback(self.headers, body)
        except BadCallback:
            return self.answer(401, "bad signature")
        if run["taskId"] not in done:
            do_the_work(body.decode(errors="replace"), run["scheduledAt"])  # your job
            done.add(run["taskId"])
        self.answer(200, "ok")  # 2xx = done; 5xx and 429 are retried (attempt + 1)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET = call


# One call at a time, so a run delivered twice at once is still done once.
HTTPServer(("", int(os.environ.get("PORT") or 3000)), Receiver).serve_forever()
