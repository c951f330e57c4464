"""Where a builder reads its source files: a bare git mirror at a pinned commit, or a
folder of (optionally gzipped) fixture files laid out as ``<owner>+<repo>/<path>``."""

from __future__ import annotations

import gzip
import subprocess
from dataclasses import dataclass
from pathlib import Path


class SourceMissing(FileNotFoundError):
    pass


@dataclass(frozen=True)
class MirrorFiles:
    """Files of ``owner/name`` at ``commit`` from the mirrors under ``root``
    (``root/<owner>+<name>/repo``, a bare git directory as the ``fetch`` tool leaves it)."""

    root: Path

    def read(self, repo: str, commit: str, path: str) -> bytes:
        git_dir = self.root / repo.replace("/", "+") / "repo"
        if not git_dir.is_dir():
            raise SourceMissing(f"no mirror of {repo} at {git_dir}")
        done = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], capture_output=True, check=False
        )
        if done.returncode != 0:
            raise SourceMissing(f"{repo}@{commit[:10]}:{path}: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout


@dataclass(frozen=True)
class FixtureFiles:
    """Small committed excerpts of the sources (tests): ``root/<owner>+<name>/<path>[.gz]``."""

    root: Path

    def read(self, repo: str, commit: str, path: str) -> bytes:
        base = self.root / repo.replace("/", "+") / path
        if base.with_name(base.name + ".gz").is_file():
            return gzip.decompress(base.with_name(base.name + ".gz").read_bytes())
        if base.is_file():
            return base.read_bytes()
        raise SourceMissing(f"no fixture {base}")

    def write(self, repo: str, path: str, data: bytes) -> Path:
        target = self.root / repo.replace("/", "+") / (path + ".gz")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
        return target
