"""A real OpenAI-compatible ``/v1/chat/completions`` server over the transformers backend
(what ``vllm serve`` answers, for tests without vLLM): the model's chat template,
``response_format`` JSON schemas enforced by XGrammar, seeded sampling, one request at a
time. ``serve(backend, name)`` yields the base URL."""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from evaluation.backends.base import Sampling


@contextlib.contextmanager
def serve(backend, served_name: str):
    lock = threading.Lock()
    state = {"requests": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, code: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "not found"}})
            if payload.get("model") != served_name:
                return self._send(404, {"error": {"message": f"model {payload.get('model')!r} is not served"}})
            schema = (payload.get("response_format") or {}).get("json_schema", {}).get("schema")
            sampling = None
            if payload.get("temperature"):
                sampling = Sampling(
                    seed=int(payload.get("seed") or 0),
                    temperature=float(payload["temperature"]),
                    top_p=float(payload.get("top_p", 1.0)),
                )
            prompt = backend.render_chat(payload["messages"])
            with lock:
                state["requests"] += 1
                (text,) = backend.generate([prompt], int(payload["max_tokens"]), json_schema=schema, sampling=sampling)
            return self._send(200, {"choices": [{"message": {"role": "assistant", "content": text}}]})

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", state
    finally:
        httpd.shutdown()
        httpd.server_close()
