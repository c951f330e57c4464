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

    def git_dir(self, repo: str) -> Path:
        """``root/<owner>+<name>/repo``, or its ``.git`` where the mirror came with one."""
        git_dir = self.root / repo.replace("/", "+") / "repo"
        return git_dir / ".git" if (git_dir / ".git").is_dir() else git_dir

    def read(self, repo: str, commit: str, path: str) -> bytes:
        git_dir = self.git_dir(repo)
        if not git_dir.is_dir():
            raise SourceMissing(f"no mirror of {repo} at {git_dir}")
        done = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], capture_output=True, check=False
        )
        if done.returncode != 0:
            raise SourceMissing(f"{repo}@{commit[:10]}:{path}: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout

    def list(self, repo: str, commit: str, under: str) -> list[str]:
        """The paths of the files under the folder ``under`` at ``commit``."""
        git_dir = self.git_dir(repo)
        done = subprocess.run(
            ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", "--name-only", commit, "--", under],
            capture_output=True,
            check=False,
        )
        if done.returncode != 0 or not done.stdout:
            raise SourceMissing(
                f"{repo}@{commit[:10]}:{under}: no files ({done.stderr.decode(errors='replace').strip()})"
            )
        return [path for path in done.stdout.decode("utf-8").split("\0") if path]


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

    def list(self, repo: str, commit: str, under: str) -> list[str]:
        """The paths of the fixture files under ``under`` (``.gz`` dropped), as the source names them."""
        base = self.root / repo.replace("/", "+")
        found = [p.relative_to(base).as_posix().removesuffix(".gz") for p in (base / under).rglob("*") if p.is_file()]
        if not found:
            raise SourceMissing(f"no fixtures under {base / under}")
        return found

    def write(self, repo: str, path: str, data: bytes) -> Path:
        target = self.root / repo.replace("/", "+") / (path + ".gz")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
        return target
