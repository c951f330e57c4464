"""A local stand-in for the Hugging Face Hub: the part of its HTTP API ``huggingface_hub`` uses.

Point ``HF_ENDPOINT`` at :attr:`FakeHub.endpoint` and the real client (``HfApi.model_info``,
``hf_hub_download``, ``snapshot_download``) talks to it as it would to huggingface.co.
Written against huggingface_hub 2.4 (``hf_api.py``, ``file_download.py``,
``_snapshot_download.py``, ``utils/_http.py``):

* ``GET /api/models/{org}/{name}/revision/{rev}`` (and without ``/revision/...``): model info
  JSON with ``sha``, ``config`` (the subset of config.json the Hub shows, with
  ``tokenizer_config``), ``cardData`` (README front matter), ``siblings`` (with each file's
  ``size`` when asked ``?blobs=true``, as ``files_metadata=True`` does), ``safetensors``
  (parameter counts read from the safetensors headers) and ``gated``.
* ``GET /api/models/{org}/{name}/tree/{rev}[/{path}]?recursive=...``: the file listing, one page.
* ``HEAD``/``GET /{org}/{name}/resolve/{rev}/{path}``: the file, with ``X-Repo-Commit``,
  ``ETag`` (the git blob id) and ``Content-Length``, which the client requires.

Errors carry the headers ``hf_raise_for_status`` maps to exceptions: an unknown repo is
``401`` + ``X-Error-Code: RepoNotFound`` (the Hub does not tell "missing" from "private"), an
unknown revision ``404`` + ``RevisionNotFound``, a missing file ``404`` + ``EntryNotFound``. A
gated repo behaves as on the Hub for a user without access: its metadata and file list are
public, its files answer ``401`` + ``X-Error-Code: GatedRepo``.

* ``GET /api/models/{org}/{name}/refs[?include_prs=1]``: branches, tags (and pull requests),
  each with its ``targetCommit``.
* ``GET /api/models/{org}/{name}/commits/{rev}``: the history of ``rev``, newest first, one page.

Each repo has commits, each a fixed 40-hex sha, on branches (``main`` is the default one;
:meth:`FakeHub.push`), tags (:meth:`FakeHub.tag`) and pull requests (``refs/pr/N``,
:meth:`FakeHub.open_pull_request`). As on the Hub, a branch, tag or ``refs/pr/N`` resolves to
its head, and a full sha to that commit wherever it lives, a pull request's included;
anything else is RevisionNotFound. Every request is logged in :attr:`FakeHub.requests` with
the revision it asked for.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import struct
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import yaml

# Keys of config.json the Hub repeats in model info's ``config``.
HUB_CONFIG_KEYS = ("architectures", "model_type", "auto_map", "quantization_config", "task_specific_params")
HUB_TOKENIZER_KEYS = ("bos_token", "eos_token", "pad_token", "unk_token", "chat_template")


@dataclass(frozen=True)
class HubRequest:
    method: str
    kind: str  # "model_info" | "tree" | "resolve" | "refs" | "commits" | "unknown"
    repo_id: str | None
    revision: str | None
    path: str | None  # file path for "resolve"/"tree"
    status: int


@dataclass
class _Commit:
    sha: str
    files: dict[str, Path | bytes]  # path in repo -> file on disk or content

    def size(self, path: str) -> int:
        source = self.files[path]
        return source.stat().st_size if isinstance(source, Path) else len(source)

    def read(self, path: str) -> bytes:
        source = self.files[path]
        return source.read_bytes() if isinstance(source, Path) else source


_PULL_REQUEST = re.compile(r"^refs/pr/([0-9]+)$")


@dataclass
class _Repo:
    repo_id: str
    branches: dict[str, list[_Commit]] = field(default_factory=dict)  # name -> history, oldest first
    tags: dict[str, _Commit] = field(default_factory=dict)
    pull_requests: dict[int, list[_Commit]] = field(default_factory=dict)  # number -> history
    gated: bool = False
    hide_sizes: bool = False  # model info tells neither file sizes nor parameter counts
    made: int = 0  # commits made so far (each sha is unique in the repo)

    @property
    def commits(self) -> list[_Commit]:
        """The default branch's history, oldest first."""
        return self.branches.get("main", [])

    def history(self, revision: str) -> list[_Commit] | None:
        """The commits reachable from ``revision``, oldest first; None when it names nothing."""
        if revision in self.branches:
            return self.branches[revision]
        if revision in self.tags:
            return self.history(self.tags[revision].sha)
        match = _PULL_REQUEST.match(revision)
        if match:
            return self.pull_requests.get(int(match.group(1)))
        for line in [*self.branches.values(), *self.pull_requests.values()]:
            for index, commit in enumerate(line):
                if commit.sha == revision:
                    return line[: index + 1]
        return None

    def commit(self, revision: str) -> _Commit | None:
        line = self.history(revision)
        return line[-1] if line else None


def _files_of(source: Path | Mapping[str, Path | bytes | str]) -> dict[str, Path | bytes]:
    if isinstance(source, Mapping):
        return {path: (value.encode() if isinstance(value, str) else value) for path, value in source.items()}
    root = Path(source)
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


class FakeHub:
    """A threaded HTTP server (on 127.0.0.1 by default) serving repos from folders or in-memory files."""

    def __init__(self) -> None:
        self._repos: dict[str, _Repo] = {}
        self._lock = threading.Lock()
        self._blob_ids: dict[tuple[str, str], str] = {}
        self.requests: list[HubRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- repos -----------------------------------------------------------------------------

    def add_repo(
        self,
        repo_id: str,
        source: Path | Mapping[str, Path | bytes | str],
        *,
        gated: bool = False,
        hide_sizes: bool = False,
    ) -> str:
        """Serve ``source`` (a folder, or ``{path: content}``) as ``repo_id``; returns its commit sha.
        ``hide_sizes``: its model info says neither the files' sizes nor the parameter count
        (as for repositories the Hub has not indexed); HEAD of a file still does."""
        with self._lock:
            self._repos[repo_id] = _Repo(repo_id, gated=gated, hide_sizes=hide_sizes)
        return self.push(repo_id, source, replace=True)

    def push(
        self,
        repo_id: str,
        changes: Path | Mapping[str, Path | bytes | str],
        *,
        replace: bool = False,
        branch: str = "main",
    ) -> str:
        """A new commit on ``branch``: its files updated with ``changes`` (or replaced by them).

        A new branch starts at ``main``'s head. Older commits stay reachable by their sha, as on the Hub.
        """
        with self._lock:
            repo = self._repos[repo_id]
            line = repo.branches.setdefault(branch, list(repo.branches.get("main", [])))
            line.append(self._new_commit(repo, line, changes, replace))
            return line[-1].sha

    def open_pull_request(self, repo_id: str, changes: Mapping[str, Path | bytes | str]) -> tuple[str, str]:
        """Anyone's pull request on ``main``: returns its ref (``refs/pr/N``) and its commit sha."""
        with self._lock:
            repo = self._repos[repo_id]
            number = len(repo.pull_requests) + 1
            line = list(repo.commits)
            line.append(self._new_commit(repo, line, changes, False))
            repo.pull_requests[number] = line
            return f"refs/pr/{number}", line[-1].sha

    def tag(self, repo_id: str, name: str, revision: str = "main") -> str:
        """Tag the commit ``revision`` names; returns its sha."""
        with self._lock:
            repo = self._repos[repo_id]
            repo.tags[name] = repo.commit(revision)
            return repo.tags[name].sha

    @staticmethod
    def _new_commit(repo: _Repo, line: list[_Commit], changes, replace: bool) -> _Commit:
        files = {} if replace or not line else dict(line[-1].files)
        files.update(_files_of(changes))
        repo.made += 1
        return _Commit(hashlib.sha1(f"{repo.repo_id}#{repo.made}".encode()).hexdigest(), files)

    def sha(self, repo_id: str, revision: str = "main") -> str:
        return self._repos[repo_id].commit(revision).sha

    def clear_log(self) -> None:
        with self._lock:
            self.requests.clear()

    # --- server ----------------------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        assert self._server is not None, "start the hub first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self, host: str = "127.0.0.1") -> FakeHub:
        """Serve on ``host`` (another address of this machine: hosts behind a virtual link)."""
        hub = self

        class Handler(_Handler):
            fake_hub = hub

        self._server = ThreadingHTTPServer((host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-hub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = None

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- what the handler needs --------------------------------------------------------------

    def _log(self, request: HubRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _lookup(self, repo_id: str, revision: str) -> tuple[_Repo | None, _Commit | None]:
        with self._lock:
            repo = self._repos.get(repo_id)
            return repo, (repo.commit(revision) if repo is not None else None)

    def _blob_id(self, commit: _Commit, path: str) -> str:
        """The git blob id (sha1 of ``blob <size>\\0`` + content), which the Hub sends as ETag."""
        key = (commit.sha, path)
        if key not in self._blob_ids:
            data = commit.read(path)
            self._blob_ids[key] = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        return self._blob_ids[key]


def _json_file(commit: _Commit, path: str) -> dict:
    if path not in commit.files:
        return {}
    try:
        value = json.loads(commit.read(path))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _card_data(commit: _Commit) -> dict | None:
    if "README.md" not in commit.files:
        return None
    text = commit.read("README.md").decode("utf-8", "replace")
    if not text.startswith("---"):
        return None
    front = text.split("---", 2)[1]
    data = yaml.safe_load(front)
    return data if isinstance(data, dict) else None


def _safetensors_params(commit: _Commit) -> dict | None:
    """``{"parameters": {dtype: count}, "total": n}`` from the safetensors headers, as the Hub shows."""
    counts: dict[str, int] = {}
    for path, source in commit.files.items():
        if not path.endswith(".safetensors"):
            continue
        if isinstance(source, Path):
            with source.open("rb") as handle:
                (length,) = struct.unpack("<Q", handle.read(8))
                header = json.loads(handle.read(length))
        else:
            (length,) = struct.unpack("<Q", source[:8])
            header = json.loads(source[8 : 8 + length])
        for name, tensor in header.items():
            if name == "__metadata__":
                continue
            n = 1
            for dim in tensor["shape"]:
                n *= dim
            counts[tensor["dtype"]] = counts.get(tensor["dtype"], 0) + n
    return {"parameters": counts, "total": sum(counts.values())} if counts else None


class _Handler(BaseHTTPRequestHandler):
    fake_hub: FakeHub
    server_version = "FakeHub/1.0"

    def log_message(self, format, *args) -> None:  # noqa: A002 - quiet
        pass

    def do_HEAD(self) -> None:
        self._dispatch(head=True)

    def do_GET(self) -> None:
        self._dispatch(head=False)

    # --- routing ---------------------------------------------------------------------------

    def _dispatch(self, *, head: bool) -> None:
        url = urlsplit(self.path)
        parts = [unquote(p) for p in url.path.split("/")[1:]]
        query = parse_qs(url.query)
        if len(parts) >= 4 and parts[:2] == ["api", "models"]:
            repo_id = f"{parts[2]}/{parts[3]}"
            rest = parts[4:]
            if not rest or (len(rest) == 2 and rest[0] == "revision"):
                blobs = query.get("blobs", [""])[0].lower() == "true"  # files_metadata=True
                return self._model_info(repo_id, rest[1] if rest else "main", head, blobs=blobs)
            if rest == ["refs"]:
                return self._refs(repo_id, "include_prs" in query, head)
            if len(rest) == 2 and rest[0] == "commits":
                return self._commits(repo_id, rest[1], head)
            if len(rest) >= 2 and rest[0] == "tree":
                recursive = query.get("recursive", ["false"])[0].lower() == "true"
                return self._tree(repo_id, rest[1], "/".join(rest[2:]), recursive, head)
        if len(parts) >= 5 and parts[2] == "resolve":
            return self._resolve(f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:]), head)
        self._send_error(404, None, "Not Found", head, kind="unknown", path=url.path)

    def _commit_or_error(self, kind: str, repo_id: str, revision: str, head: bool, path: str | None = None):
        repo, commit = self.fake_hub._lookup(repo_id, revision)
        if repo is None:
            self._send_error(
                401,
                "RepoNotFound",
                "Repository not found",
                head,
                kind=kind,
                repo_id=repo_id,
                revision=revision,
                path=path,
            )
            return None, None
        if commit is None:
            self._send_error(
                404,
                "RevisionNotFound",
                f"Invalid rev id: {revision}",
                head,
                kind=kind,
                repo_id=repo_id,
                revision=revision,
                path=path,
            )
            return None, None
        return repo, commit

    def _refs(self, repo_id: str, include_prs: bool, head: bool) -> None:
        repo, _ = self.fake_hub._lookup(repo_id, "main")
        if repo is None:
            self._send_error(401, "RepoNotFound", "Repository not found", head, kind="refs", repo_id=repo_id)
            return

        def ref(name: str, full: str, commit: _Commit) -> dict:
            return {"name": name, "ref": full, "targetCommit": commit.sha}

        payload = {
            "branches": [ref(name, f"refs/heads/{name}", line[-1]) for name, line in repo.branches.items()],
            "converts": [],
            "tags": [ref(name, f"refs/tags/{name}", commit) for name, commit in repo.tags.items()],
        }
        if include_prs:
            payload["pullRequests"] = [
                ref(f"refs/pr/{number}", f"refs/pr/{number}", line[-1]) for number, line in repo.pull_requests.items()
            ]
        self._send_json(200, payload, head, HubRequest(self.command, "refs", repo_id, None, None, 200))

    def _commits(self, repo_id: str, revision: str, head: bool) -> None:
        repo, commit = self._commit_or_error("commits", repo_id, revision, head)
        if commit is None:
            return
        with self.fake_hub._lock:
            line = repo.history(revision) or []
        payload = [
            {
                "id": c.sha,
                "authors": [{"user": repo_id.split("/")[0]}],
                "date": "2026-01-01T00:00:00.000Z",
                "title": f"commit {c.sha[:7]}",
                "message": "",
            }
            for c in reversed(line)
        ]
        self._send_json(200, payload, head, HubRequest(self.command, "commits", repo_id, revision, None, 200))

    def _model_info(self, repo_id: str, revision: str, head: bool, *, blobs: bool = False) -> None:
        repo, commit = self._commit_or_error("model_info", repo_id, revision, head)
        if commit is None:
            return
        full = _json_file(commit, "config.json")
        config = {key: full[key] for key in HUB_CONFIG_KEYS if key in full}
        tokenizer = _json_file(commit, "tokenizer_config.json")
        tokenizer = {key: tokenizer[key] for key in HUB_TOKENIZER_KEYS if key in tokenizer}
        if tokenizer:
            config["tokenizer_config"] = tokenizer
        info = {
            "_id": hashlib.md5(repo_id.encode()).hexdigest()[:24],
            "id": repo_id,
            "modelId": repo_id,
            "author": repo_id.split("/")[0],
            "sha": commit.sha,
            "lastModified": "2026-01-01T00:00:00.000Z",
            "createdAt": "2025-01-01T00:00:00.000Z",
            "private": False,
            "disabled": False,
            "gated": "manual" if repo.gated else False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "config": config or None,
            "cardData": _card_data(commit),
            "siblings": [
                {"rfilename": path, **({"size": commit.size(path)} if blobs and not repo.hide_sizes else {})}
                for path in sorted(commit.files)
            ],
            "safetensors": None if repo.hide_sizes else _safetensors_params(commit),
        }
        info = {key: value for key, value in info.items() if value is not None}
        self._send_json(200, info, head, HubRequest(self.command, "model_info", repo_id, revision, None, 200))

    def _tree(self, repo_id: str, revision: str, under: str, recursive: bool, head: bool) -> None:
        _, commit = self._commit_or_error("tree", repo_id, revision, head, path=under)
        if commit is None:
            return
        prefix = f"{under.strip('/')}/" if under.strip("/") else ""
        entries, folders = [], set()
        for path in sorted(commit.files):
            if not path.startswith(prefix):
                continue
            rel = path[len(prefix) :]
            if "/" in rel:
                top = prefix + rel.split("/", 1)[0]
                if recursive:
                    # every folder between prefix and the file
                    pieces = rel.split("/")[:-1]
                    for depth in range(1, len(pieces) + 1):
                        folders.add(prefix + "/".join(pieces[:depth]))
                else:
                    folders.add(top)
                    continue
            entries.append(
                {"type": "file", "oid": self.fake_hub._blob_id(commit, path), "size": commit.size(path), "path": path}
            )
        entries += [
            {"type": "directory", "oid": hashlib.sha1(f.encode()).hexdigest(), "size": 0, "path": f}
            for f in sorted(folders)
        ]
        self._send_json(200, entries, head, HubRequest(self.command, "tree", repo_id, revision, under or None, 200))

    def _resolve(self, repo_id: str, revision: str, path: str, head: bool) -> None:
        repo, commit = self._commit_or_error("resolve", repo_id, revision, head, path=path)
        if commit is None:
            return
        if repo.gated:
            self._send_error(
                401,
                "GatedRepo",
                f"Access to model {repo_id} is restricted. You must have access "
                "to it and be authenticated to access it. Please log in.",
                head,
                kind="resolve",
                repo_id=repo_id,
                revision=revision,
                path=path,
            )
            return
        if path not in commit.files:
            self._send_error(
                404,
                "EntryNotFound",
                f'{path} does not exist on "{revision}"',
                head,
                kind="resolve",
                repo_id=repo_id,
                revision=revision,
                path=path,
                extra={"X-Repo-Commit": commit.sha},
            )
            return
        self.fake_hub._log(HubRequest(self.command, "resolve", repo_id, revision, path, 200))
        blob_id = self.fake_hub._blob_id(commit, path)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(commit.size(path)))
        self.send_header("ETag", f'"{blob_id}"')
        self.send_header("X-Repo-Commit", commit.sha)
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if head:
            return
        source = commit.files[path]
        if isinstance(source, Path):
            with source.open("rb") as handle:
                shutil.copyfileobj(handle, self.wfile, 1 << 20)
        else:
            self.wfile.write(source)

    # --- responses -------------------------------------------------------------------------

    def _send_json(self, status: int, payload, head: bool, logged: HubRequest) -> None:
        self.fake_hub._log(logged)
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _send_error(
        self,
        status: int,
        code: str | None,
        message: str,
        head: bool,
        *,
        kind: str,
        repo_id: str | None = None,
        revision: str | None = None,
        path: str | None = None,
        extra: Mapping[str, str] | None = None,
    ) -> None:
        self.fake_hub._log(HubRequest(self.command, kind, repo_id, revision, path, status))
        body = json.dumps({"error": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        if code is not None:
            self.send_header("X-Error-Code", code)
        self.send_header("X-Error-Message", message)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)
